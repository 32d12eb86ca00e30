import ObjectGraph

extension StoreError {
    /// A malformed XML store, naming the file and the line.
    static func xml(_ path: String?, line: Int?, _ message: String) -> StoreError {
        StoreError(.corrupt, path: path.map { p in line.map { "\(p):\($0)" } ?? p }, message)
    }
}
