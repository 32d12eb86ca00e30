import CSQLite
public import Foundation
import ModelFiles

/// One value of a row of a plain SQLite table.
public enum SQLiteCell: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}
