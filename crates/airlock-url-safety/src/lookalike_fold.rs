//! Folding text to look-alike skeletons (UTS 39, diacritics, ASCII
//! look-alikes), and the edit distance between two skeletons.

use std::sync::OnceLock;

use super::EDIT_MAX_LEN;

use unicode_script::{Script, UnicodeScript};

/// Appends the words of `skel` (split at `.` and `-`, empty words
/// dropped), each followed by a `.`, and records their byte ranges in
/// `ranges`.
pub(super) fn push_words(
    skel: &str,
    out: &mut String,
    mut ranges: Option<&mut Vec<(usize, usize)>>,
) {
    for w in skel.split(['.', '-']).filter(|w| !w.is_empty()) {
        let at = out.len();
        out.push_str(w);
        if let Some(r) = ranges.as_deref_mut() {
            r.push((at, out.len()));
        }
        out.push('.');
    }
}

/// Folds `text` (labels joined by `.`, lower-case) into `out`: see
/// [`super::skeleton`].
///
/// ASCII characters come from a table; each run of other characters goes
/// through `unicode_security::skeleton` on its own. That is the skeleton of
/// the whole text: an ASCII character is a starter that neither decomposes
/// nor takes part in canonical reordering, and so are the characters of its
/// prototype, so the normalization steps never reach across it.
///
/// A run of a single character, the common case in internationalized names
/// (`münchen`), is looked up in `cache` first.
pub(super) fn fold_text(text: &str, out: &mut String, cache: &mut CharCache) {
    out.clear();
    out.reserve(text.len());
    let (single, table) = ascii_skeletons();
    let mut rest = text;
    while !rest.is_empty() {
        let ascii_len = rest.bytes().take_while(u8::is_ascii).count();
        let (ascii, tail) = rest.split_at(ascii_len);
        for b in ascii.bytes() {
            let i = usize::from(b);
            match single.get(i).copied() {
                Some(one) if one != 0 => push_folded(out, char::from(one)),
                _ => {
                    let more = table.get(i).map_or("", String::as_str);
                    more.chars().for_each(|c| push_folded(out, c));
                }
            }
        }
        let other_len = tail.find(|c: char| c.is_ascii()).unwrap_or(tail.len());
        let (other, tail) = tail.split_at(other_len);
        let mut chars = other.chars();
        match (chars.next(), chars.next()) {
            (None, _) => {}
            (Some(one), None) => {
                let folded = cache.get(one);
                folded.chars().for_each(|c| push_folded(out, c));
            }
            _ => skeleton_run(other, |c| push_folded(out, c)),
        }
        rest = tail;
    }
}

/// The skeleton of `run`, lower-cased, marks dropped, characters folded,
/// one character at a time.
pub(super) fn skeleton_run(run: &str, mut each: impl FnMut(char)) {
    for c in unicode_security::skeleton(run) {
        for l in c.to_lowercase() {
            if !is_dropped_mark(l) {
                each(fold_char(l));
            }
        }
    }
}

/// What single non-ASCII characters fold to (before pairs are folded),
/// remembered for the entries of one known list. Bounded: it starts over
/// when full.
#[derive(Default)]
pub(super) struct CharCache(std::collections::HashMap<char, String>);

impl CharCache {
    const MAX: usize = 4096;

    fn get(&mut self, c: char) -> &str {
        if self.0.len() >= Self::MAX && !self.0.contains_key(&c) {
            self.0.clear();
        }
        self.0.entry(c).or_insert_with(|| {
            let mut folded = String::new();
            let mut buf = [0u8; 4];
            skeleton_run(c.encode_utf8(&mut buf), |f| folded.push(f));
            folded
        })
    }
}

/// Appends `c`, folding the pairs `rn` → `m` and `vv` → `w` from left to
/// right as it goes.
#[inline]
pub(super) fn push_folded(out: &mut String, c: char) {
    let last = out.as_bytes().last().copied();
    let pair = match (last, c) {
        (Some(b'r'), 'n') => 'm',
        (Some(b'v'), 'v') => 'w',
        _ => {
            out.push(c);
            return;
        }
    };
    out.pop();
    out.push(pair);
}

/// Combining marks of the Inherited script (generic diacritics).
pub(super) fn is_dropped_mark(c: char) -> bool {
    !c.is_ascii() && c.script() == Script::Inherited
}

/// The one-character ASCII folds.
pub(super) fn fold_char(c: char) -> char {
    match c {
        '0' => 'o',
        '1' | 'l' | '|' | 'I' => 'i',
        c => c,
    }
}

/// Skeleton, lower-cased and character-folded, of each ASCII character,
/// computed once from the UTS 39 data (the same result as the Unicode
/// path, without its per-character cost): the characters to append, and
/// for most characters also the single ASCII byte they come to once their
/// own pairs are folded (`m` gives `rn`, which folds back to `m`), else 0.
/// Appending that byte with [`push_folded`] is the same as appending the
/// characters: of a folded pair only the second character looks back.
pub(super) fn ascii_skeletons() -> &'static ([u8; 128], Vec<String>) {
    static TABLE: OnceLock<([u8; 128], Vec<String>)> = OnceLock::new();
    TABLE.get_or_init(|| {
        let table: Vec<String> = (0u8..128)
            .map(|b| {
                let c = char::from(b).to_string();
                unicode_security::skeleton(&c)
                    .flat_map(char::to_lowercase)
                    .filter(|&c| !is_dropped_mark(c))
                    .map(fold_char)
                    .collect()
            })
            .collect();
        let mut single = [0u8; 128];
        for (slot, chars) in single.iter_mut().zip(&table) {
            let mut folded = String::new();
            chars.chars().for_each(|c| push_folded(&mut folded, c));
            if let &[one] = folded.as_bytes() {
                if one.is_ascii() && one != 0 {
                    *slot = one;
                }
            }
        }
        (single, table)
    })
}

/// Optimal string alignment distance (restricted Damerau-Levenshtein:
/// insertions, deletions, substitutions, swaps of neighbours) between `a`
/// and `b` if it is at most `max` (at most 2), else `None`; also `None`
/// when either is longer than [`EDIT_MAX_LEN`]. Only the band of cells
/// within `max` of the diagonal is computed, so the cost is linear in the
/// length.
pub(super) fn osa_distance_within<T: PartialEq>(a: &[T], b: &[T], max: usize) -> Option<usize> {
    const W: usize = EDIT_MAX_LEN + 2;
    if max > 2 || a.len() > EDIT_MAX_LEN || b.len() > EDIT_MAX_LEN {
        return None;
    }
    if a.len().abs_diff(b.len()) > max {
        return None;
    }
    // Any value above `max` behaves the same; cap there so u8 never
    // overflows.
    let inf = (max + 1) as u8;
    let cap = |n: usize| n.min(usize::from(inf)) as u8;
    // Rows i-2, i-1 and i of the matrix, indexed by j. Row i is written in
    // its band [lo, hi] and one cell either side (or its column 0), which
    // is all the next two rows read.
    let mut prev2 = [inf; W];
    let mut prev = [inf; W];
    let mut cur = [inf; W];
    for (j, cell) in prev.iter_mut().enumerate().take(b.len() + 1) {
        *cell = cap(j);
    }
    for i in 1..=a.len() {
        let lo = i.saturating_sub(max).max(1);
        let hi = (i + max).min(b.len());
        cur[0] = cap(i);
        if lo > 1 {
            cur[lo - 1] = inf;
        }
        if hi < b.len() {
            cur[hi + 1] = inf;
        }
        let mut row_min = cur[0];
        for j in lo..=hi {
            let cost = u8::from(a[i - 1] != b[j - 1]);
            let mut v = (prev[j - 1] + cost).min(prev[j] + 1).min(cur[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(prev2[j - 2] + 1);
            }
            let v = v.min(inf);
            cur[j] = v;
            row_min = row_min.min(v);
        }
        if row_min > inf - 1 {
            return None;
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    let d = usize::from(prev[b.len()]);
    (d <= max).then_some(d)
}
