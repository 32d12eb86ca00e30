import Foundation
import ModelFiles
public import ObjectGraph
import SQLiteStore

/// What checking a document or a model found.
public struct DocumentCheckReport: Sendable {
    /// The problems, in a stable order (by object, kind, key, detail).
    public var problems: [StoreProblem]
    /// Problems found beyond the listing limit, by kind (counted, not listed).
    public var unlisted: [StoreProblem.Kind: Int]
    /// How many objects were read and checked against the model's rules.
    public var objectsChecked: Int
    /// Things worth telling the user that are not problems of the file (an inferred model, say).
    public var warnings: [String]

    /// Whether nothing was found.
    public var isSound: Bool { problems.isEmpty && unlisted.isEmpty }
}
