//! Release numbers as CUDA writes them (`1000 * major + 10 * minor`: 13.2 is `13020`) and the
//! table of each function's first release that a generated crate carries.

/// The first release of the C function `name` in `table` (sorted by name, as a generated
/// crate's `sys::since::FUNCTIONS` is), or `None` for a function every release of the major
/// has, and for a name the table does not list.
pub fn function_since(table: &[(&str, i32)], name: &str) -> Option<i32> {
    table
        .binary_search_by(|(n, _)| (*n).cmp(name))
        .ok()
        .map(|i| table[i].1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_searched_by_name() {
        let table = [("cudaA", 13010), ("cudaB", 13040)];
        assert_eq!(function_since(&table, "cudaB"), Some(13040));
        assert_eq!(function_since(&table, "cudaC"), None);
    }
}
