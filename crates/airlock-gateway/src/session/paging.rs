//! Pages of the aggregated lists for an app.

use rmcp::model::{ErrorData, PaginatedRequestParams};

use crate::limits;

/// Page `items` for an app: the cursor is the offset (opaque to the app).
pub(crate) fn page<T: Clone>(
    items: &[T],
    request: Option<&PaginatedRequestParams>,
) -> Result<(Vec<T>, Option<String>), ErrorData> {
    let start = match request.and_then(|r| r.cursor.as_deref()) {
        None => 0,
        Some(c) => c
            .parse::<usize>()
            .ok()
            .filter(|n| *n <= items.len())
            .ok_or_else(|| {
                ErrorData::invalid_params("unknown cursor: list again from the start", None)
            })?,
    };
    let end = (start + limits::LIST_PAGE_SIZE).min(items.len());
    let next = (end < items.len()).then(|| end.to_string());
    Ok((items[start..end].to_vec(), next))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limits;

    #[test]
    fn pages_and_cursors() {
        let items: Vec<usize> = (0..(limits::LIST_PAGE_SIZE * 2 + 3)).collect();
        let (first, next) = page(&items, None).unwrap();
        assert_eq!(first.len(), limits::LIST_PAGE_SIZE);
        let mut req = PaginatedRequestParams::default();
        req.cursor = next;
        let (second, next) = page(&items, Some(&req)).unwrap();
        assert_eq!(second[0], limits::LIST_PAGE_SIZE);
        req.cursor = next;
        let (third, next) = page(&items, Some(&req)).unwrap();
        assert_eq!(third.len(), 3);
        assert!(next.is_none());
        req.cursor = Some("garbage".into());
        assert!(page(&items, Some(&req)).is_err());
        req.cursor = Some(format!("{}", items.len() + 1));
        assert!(page(&items, Some(&req)).is_err());
        let empty: Vec<usize> = Vec::new();
        assert_eq!(page(&empty, None).unwrap(), (Vec::new(), None));
    }
}
