import Foundation
public import ObjectGraph

/// Writes a model as the `contents` XML of an `.xcdatamodel` directory, the way Xcode lays it out.
///
/// Reading the output with `XcodeModelReader` gives an equal model. Diagram layout is not written.
public enum XcodeModelWriter {
    /// Our attribute on a `fetchRequest` element that keeps why its predicate could not be read from a compiled
    /// model, so that a model written and read again still refuses to use it (Xcode ignores attributes it does not
    /// know).
    public static let undecodablePredicateAttribute = "docutilUndecodablePredicate"

    /// The `contents` XML for `model`.
    /// - Parameter model: the model.
    /// - Returns: the XML, as Xcode writes it.
    /// - Throws: ``ModelFileError`` `unsupported` when a string of the model holds a character XML cannot hold (a
    ///   control character): the text would not be read back.
    public static func contents(of model: ManagedObjectModel) throws(ModelFileError) -> String {
        var out = XMLText()
        out.line(#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#)
        out.open(
            "model",
            [
                ("type", "com.apple.IDECoreDataModeler.DataModel"), ("documentVersion", "1.0"),
                ("lastSavedToolsVersion", "1"), ("systemVersion", "docutil"), ("minimumToolsVersion", "Automatic"),
                ("sourceLanguage", "Swift"),
                ("userDefinedModelVersionIdentifier", model.versionIdentifiers.first ?? ""),
            ])
        for entity in model.entities { write(entity, to: &out) }
        for template in model.fetchRequestTemplates {
            var attributes: [(String, String)] = [("name", template.name), ("entity", template.entityName)]
            if let p = template.predicate { attributes.append(("predicateString", p)) }
            if let reason = template.undecodablePredicate {
                attributes.append((Self.undecodablePredicateAttribute, reason))
            }
            if let v = template.fetchLimit { attributes.append(("fetchLimit", String(v))) }
            if let v = template.fetchBatchSize { attributes.append(("fetchBatchSize", String(v))) }
            if let v = template.resultType { attributes.append(("resultType", String(v.rawValue))) }
            let flags: [(String, Bool?)] = [
                ("includeSubentities", template.includesSubentities),
                ("includePropertyValues", template.includesPropertyValues),
                ("includesPendingChanges", template.includesPendingChanges),
                ("returnObjectsAsFaults", template.returnsObjectsAsFaults),
                ("returnDistinctResults", template.returnsDistinctResults),
            ]
            for (name, value) in flags { if let value { attributes.append((name, value ? "YES" : "NO")) } }
            out.empty("fetchRequest", attributes)
        }
        for configuration in model.configurations {
            out.open("configuration", [("name", configuration.name)])
            for name in configuration.entityNames { out.empty("memberEntity", [("name", name)]) }
            out.close("configuration")
        }
        for composite in model.composites {
            out.open("composite", [("name", composite.name)])
            for attribute in composite.attributes { write(attribute, to: &out) }
            out.close("composite")
        }
        out.close("model")
        if let (scalar, line) = XMLCharacters.firstUnwritable(in: out.text) {
            throw ModelFileError(
                .unsupported,
                "line \(line) of the model's XML would hold \(XMLCharacters.name(scalar)), which XML cannot hold (a name, value or user info entry of the model has it)"
            )
        }
        return out.text
    }

    private static func write(_ entity: EntityDescription, to out: inout XMLText) {
        var attributes: [(String, String)] = [("name", entity.name)]
        attributes.append(("representedClassName", entity.className ?? "NSManagedObject"))
        if let parent = entity.parentName { attributes.append(("parentEntity", parent)) }
        if entity.isAbstract { attributes.append(("isAbstract", "YES")) }
        if let v = entity.versionHashModifier { attributes.append(("versionHashModifier", v)) }
        if let v = entity.renamingIdentifier { attributes.append(("elementID", v)) }
        out.open("entity", attributes)
        for attribute in entity.attributes { write(attribute, to: &out) }
        for r in entity.relationships {
            var a: [(String, String)] = [("name", r.name)]
            if r.isOptional { a.append(("optional", "YES")) }
            if r.isTransient { a.append(("transient", "YES")) }
            if r.isToMany { a.append(("toMany", "YES")) }
            if r.isOrdered { a.append(("ordered", "YES")) }
            if r.minCount != 0 { a.append(("minCount", String(r.minCount))) }
            if r.writesUnboundedAsMinusOne {
                a.append(("maxCount", "-1"))
            } else if !r.isToMany || r.maxCount != 0 {
                a.append(("maxCount", String(r.maxCount)))
            }
            a.append(("deletionRule", r.deleteRule.xcodeName))
            a.append(("destinationEntity", r.destinationEntityName))
            if let inverse = r.inverseName {
                a.append(("inverseName", inverse))
                a.append(("inverseEntity", r.destinationEntityName))
            }
            if r.isIndexed { a.append(("indexed", "YES")) }
            if let v = r.versionHashModifier { a.append(("versionHashModifier", v)) }
            if let v = r.renamingIdentifier { a.append(("elementID", v)) }
            element("relationship", a, userInfo: r.userInfo, to: &out)
        }
        for f in entity.fetchedProperties {
            var a: [(String, String)] = [("name", f.name)]
            if f.isOptional { a.append(("optional", "YES")) }
            out.open("fetchedProperty", a)
            var request: [(String, String)] = [("name", "fetchedPropertyFetchRequest"), ("entity", f.entityName)]
            if let p = f.predicate { request.append(("predicateString", p)) }
            if let reason = f.undecodablePredicate { request.append((Self.undecodablePredicateAttribute, reason)) }
            out.empty("fetchRequest", request)
            writeUserInfo(f.userInfo, to: &out)
            out.close("fetchedProperty")
        }
        if !entity.compoundIndexes.isEmpty {
            out.open("compoundIndexes", [])
            for index in entity.compoundIndexes {
                out.open("compoundIndex", [])
                for name in index { out.empty("index", [("value", name)]) }
                out.close("compoundIndex")
            }
            out.close("compoundIndexes")
        }
        for index in entity.fetchIndexes {
            var a: [(String, String)] = [("name", index.name)]
            if let p = index.partialIndexPredicate { a.append(("partialIndexExpression", p)) }
            out.open("fetchIndex", a)
            for e in index.elements {
                out.empty(
                    "fetchIndexElement",
                    [("property", e.property), ("type", e.kind), ("order", e.ascending ? "ascending" : "descending")])
            }
            out.close("fetchIndex")
        }
        if !entity.uniquenessConstraints.isEmpty {
            out.open("uniquenessConstraints", [])
            for constraint in entity.uniquenessConstraints {
                out.open("uniquenessConstraint", [])
                for name in constraint { out.empty("constraint", [("value", name)]) }
                out.close("uniquenessConstraint")
            }
            out.close("uniquenessConstraints")
        }
        writeUserInfo(entity.userInfo, to: &out)
        out.close("entity")
    }

    private static func write(_ attribute: AttributeDescription, to out: inout XMLText) {
        var a: [(String, String)] = [("name", attribute.name)]
        if attribute.isOptional { a.append(("optional", "YES")) }
        if attribute.isTransient { a.append(("transient", "YES")) }
        a.append(("attributeType", attribute.type.xcodeName))
        func valueText(_ value: AttributeValue) -> String {
            if case .date(let d) = value { return String(d.timeIntervalSinceReferenceDate) }
            return value.literalText
        }
        let rules = attribute.validation
        if attribute.type == .date {
            if let v = rules.minimumValue { a.append(("minDateTimeInterval", valueText(v))) }
            if let v = rules.maximumValue { a.append(("maxDateTimeInterval", valueText(v))) }
            if !attribute.defaultValue.isNull {
                a.append(("defaultDateTimeInterval", valueText(attribute.defaultValue)))
            }
        } else {
            if let v = rules.minimumValue { a.append(("minValueString", valueText(v))) }
            if let v = rules.maximumValue { a.append(("maxValueString", valueText(v))) }
            if let v = rules.minimumLength { a.append(("minValueString", String(v))) }
            if let v = rules.maximumLength { a.append(("maxValueString", String(v))) }
            if !attribute.defaultValue.isNull { a.append(("defaultValueString", valueText(attribute.defaultValue))) }
        }
        if let v = rules.regularExpression { a.append(("regularExpressionString", v)) }
        if let v = attribute.derivationExpression {
            a.append(("derived", "YES"))
            a.append(("derivationExpression", v))
        }
        if attribute.allowsExternalBinaryDataStorage { a.append(("allowsExternalBinaryDataStorage", "YES")) }
        if attribute.preservesValueInHistoryOnDeletion { a.append(("preserveAfterDeletion", "YES")) }
        if let v = attribute.valueTransformerName { a.append(("valueTransformerName", v)) }
        if let v = attribute.customClassName { a.append(("customClassName", v)) }
        if let v = attribute.compositeName { a.append(("composite", v)) }
        if attribute.isIndexed { a.append(("indexed", "YES")) }
        if let v = attribute.versionHashModifier { a.append(("versionHashModifier", v)) }
        if let v = attribute.renamingIdentifier { a.append(("elementID", v)) }
        element("attribute", a, userInfo: attribute.userInfo, to: &out)
    }

    private static func element(
        _ name: String, _ attributes: [(String, String)], userInfo: [String: String], to out: inout XMLText
    ) {
        if userInfo.isEmpty {
            out.empty(name, attributes)
        } else {
            out.open(name, attributes)
            writeUserInfo(userInfo, to: &out)
            out.close(name)
        }
    }

    private static func writeUserInfo(_ userInfo: [String: String], to out: inout XMLText) {
        guard !userInfo.isEmpty else { return }
        out.open("userInfo", [])
        for (key, value) in userInfo.sorted(by: { $0.key < $1.key }) {
            out.empty("entry", [("key", key), ("value", value)])
        }
        out.close("userInfo")
    }
}

/// Builds indented XML text.
struct XMLText {
    private(set) var text = ""
    private var depth = 0

    mutating func line(_ s: String) {
        text += String(repeating: "    ", count: depth) + s + "\n"
    }

    mutating func open(_ name: String, _ attributes: [(String, String)]) {
        line("<\(name)\(Self.attributeText(attributes))>")
        depth += 1
    }

    mutating func close(_ name: String) {
        depth -= 1
        line("</\(name)>")
    }

    mutating func empty(_ name: String, _ attributes: [(String, String)]) {
        line("<\(name)\(Self.attributeText(attributes))/>")
    }

    static func attributeText(_ attributes: [(String, String)]) -> String {
        attributes.map { " \($0.0)=\"\(escape($0.1))\"" }.joined()
    }

    /// Escapes element text (`&`, `<`, `>`, and a carriage return, which a parser would read as a line feed).
    static func escapeText(_ s: String) -> String {
        guard s.utf8.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x0D }) else { return s }
        return escaped(s, attribute: false)
    }

    /// Escapes text for an XML attribute value, keeping line breaks and tabs as character references.
    static func escape(_ s: String) -> String { escaped(s, attribute: true) }

    /// `s` with XML's special characters escaped, and for an attribute value its quotes, line feeds and tabs too.
    /// By scalar: "\r\n" is one Character, and its carriage return must still be escaped.
    private static func escaped(_ s: String, attribute: Bool) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count + 16)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\r": out += "&#13;"
            case "\"" where attribute: out += "&quot;"
            case "\n" where attribute: out += "&#10;"
            case "\t" where attribute: out += "&#9;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
