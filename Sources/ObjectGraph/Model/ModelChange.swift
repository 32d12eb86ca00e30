import Foundation

/// One difference between two models: an element added, removed, renamed, or one of its fields changed.
public struct ModelChange: Sendable, Hashable, CustomStringConvertible {
    /// What kind of model element.
    public enum Element: String, Sendable, Hashable, Comparable {
        case model, entity, attribute, relationship, fetchedProperty, fetchRequest, configuration

        /// Elements sort in the order they are listed, so reports are stable.
        /// - Parameters:
        ///   - a: one element kind.
        ///   - b: the other.
        /// - Returns: whether `a` is listed first.
        public static func < (a: Element, b: Element) -> Bool { a.rawValue < b.rawValue }
    }

    /// What happened to it.
    public enum Change: Sendable, Hashable {
        /// Only in the second model.
        case added
        /// Only in the first model.
        case removed
        /// In the second model under a new name, found by its renaming identifier.
        case renamed(from: String)
        /// A field differs: its name and its value in each model (`nil` for none).
        case changed(field: String, old: String?, new: String?)
    }

    /// The element's kind.
    public var element: Element
    /// Its name: `Entity`, `Entity.property`, or a fetch request's or configuration's name (in the second model for
    /// a renamed or changed element).
    public var name: String
    /// What happened.
    public var change: Change

    /// Creates a change.
    /// - Parameters:
    ///   - element: what kind of model element changed.
    ///   - name: its name (`Entity` or `Entity.property`).
    ///   - change: how it changed.
    public init(_ element: Element, _ name: String, _ change: Change) {
        self.element = element
        self.name = name
        self.change = change
    }

    /// `+ attribute Person.age`, `- entity Car`, `~ attribute Person.age type: Integer 16 → Integer 32`,
    /// `> attribute Person.fullName renamed from name`.
    public var description: String {
        let what = name.isEmpty ? element.rawValue : "\(element.rawValue) \(name)"
        return switch change {
        case .added: "+ \(what)"
        case .removed: "- \(what)"
        case .renamed(let from): "> \(what) renamed from \(from)"
        case .changed(let field, let old, let new): "~ \(what) \(field): \(old ?? "none") → \(new ?? "none")"
        }
    }
}
