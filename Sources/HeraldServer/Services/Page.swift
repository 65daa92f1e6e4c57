/// One page of a listing, and the cursor that fetches the next one (nil on the last page).
struct Page<Item, Cursor> {
    var items: [Item]
    var next: Cursor?

    /// A full page may have more after it; a short one is the last.
    init(_ items: [Item], limit: Int, cursor: (Item) -> Cursor) {
        self.items = items
        next = items.count == limit ? items.last.map(cursor) : nil
    }
}
