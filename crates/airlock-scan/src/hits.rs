//! The hits of one text: what each check finds, before they are gathered
//! into findings. Every check writes here; it depends on nothing but the
//! crate's own kinds and severities.

use crate::{FindingKind, Severity};

/// One thing found, before it is gathered into a [`Finding`](crate::Finding).
pub(crate) struct Hit {
    pub(crate) kind: FindingKind,
    pub(crate) severity: Severity,
    /// Byte range (in the original text, or in the reading until converted).
    pub(crate) start: usize,
    pub(crate) end: usize,
    pub(crate) detail: String,
}

/// Hits kept of one kind in one text beyond which only a worse one is kept
/// (the rest are counted): 1 MB of escape sequences makes a few hundred
/// thousand, and each would format a sentence.
const MAX_KEPT_HITS: u16 = 32;

/// The hits of one text: the first of each kind (and any worse one after
/// them), and how many more there were.
#[derive(Default)]
pub(crate) struct Hits {
    pub(crate) list: Vec<Hit>,
    kept: [u16; FindingKind::ALL.len()],
    best: [Option<Severity>; FindingKind::ALL.len()],
    extra: [usize; FindingKind::ALL.len()],
}

impl Hits {
    pub(crate) fn clear(&mut self) {
        self.list.clear();
        self.kept = [0; FindingKind::ALL.len()];
        self.best = [None; FindingKind::ALL.len()];
        self.extra = [0; FindingKind::ALL.len()];
    }

    /// Whether a hit of `kind` at `severity` would be kept.
    pub(crate) fn wants(&self, kind: FindingKind, severity: Severity) -> bool {
        let k = kind as usize;
        self.kept[k] < MAX_KEPT_HITS || self.best[k].is_none_or(|b| severity > b)
    }

    /// Adds a hit; `detail` is only written when the hit is kept.
    pub(crate) fn add(
        &mut self,
        kind: FindingKind,
        severity: Severity,
        start: usize,
        end: usize,
        detail: impl FnOnce() -> String,
    ) {
        let k = kind as usize;
        if !self.wants(kind, severity) {
            self.extra[k] += 1;
            return;
        }
        self.kept[k] = self.kept[k].saturating_add(1);
        self.best[k] = self.best[k].max(Some(severity));
        self.list.push(Hit {
            kind,
            severity,
            start,
            end,
            detail: detail(),
        });
    }

    /// How many hits of `kind` there were, kept or not.
    pub(crate) fn count(&self, kind: FindingKind) -> usize {
        usize::from(self.kept[kind as usize]) + self.extra[kind as usize]
    }

    /// Adds the hits `other` counted but did not keep (those it kept are
    /// added one by one, see [`Hits::add`]).
    pub(crate) fn count_dropped_of(&mut self, other: &Hits) {
        for kind in FindingKind::ALL {
            self.extra[kind as usize] += other.extra[kind as usize];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hits_are_kept_up_to_the_bound_and_counted_after() {
        let mut hits = Hits::default();
        let k = FindingKind::HtmlTag;
        for i in 0..usize::from(MAX_KEPT_HITS) {
            hits.add(k, Severity::Notice, i, i + 1, || "kept".into());
        }
        assert_eq!(hits.list.len(), usize::from(MAX_KEPT_HITS));
        hits.add(k, Severity::Notice, 0, 1, || unreachable!("not written"));
        assert_eq!(hits.list.len(), usize::from(MAX_KEPT_HITS));
        // A worse one is still kept.
        hits.add(k, Severity::Serious, 0, 1, || "worse".into());
        assert_eq!(hits.list.len(), usize::from(MAX_KEPT_HITS) + 1);
        assert_eq!(hits.count(k), usize::from(MAX_KEPT_HITS) + 2);
    }
}
