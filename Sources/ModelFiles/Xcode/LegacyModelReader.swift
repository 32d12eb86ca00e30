import Foundation
import ObjectGraph

/// Xcode 3's model format: the `elements` file of an `.xcdatamodel` folder, also found as the copies of the source
/// and destination models inside `.xcmappingmodel` files. It is a keyed archive of Xcode's modelling objects
/// (`XDPMModel` → `XDModelPackage` → `XDPMEntity`, `XDPMAttribute`, `XDPMRelationship`), whose Core Data settings
/// sit in named "stereotypes" (`XD_PStereotype`, `XD_PPropStereotype`, `XD_PAtt_Stereotype`, `XD_PR_Stereotype`),
/// each a set of named values. Learned from the files in the fixtures.
///
/// The model is read by turning it into the `contents` XML of later Xcode versions, so that it is checked exactly
/// as such a file is.
enum LegacyModelReader {
    /// Whether the bytes are an `elements` archive (a keyed archive whose root object is an `XDPMModel`).
    static func isLegacyModel(_ data: Data) -> Bool {
        guard data.starts(with: Array("bplist".utf8)), let archive = try? KeyedArchive(data: data),
            let root = try? archive.instance(.uid(archive.rootUID))
        else { return false }
        return root.className == "XDPMModel"
    }

    /// The model, and what was not read.
    static func read(_ data: Data) throws(ModelFileError) -> (model: ManagedObjectModel, warnings: [String]) {
        let (xml, warnings) = try contents(of: data)
        return (try XcodeModelReader.read(Data(xml.utf8)), warnings)
    }

    /// The `contents` XML of the model in an `elements` archive.
    static func contents(of data: Data) throws(ModelFileError) -> (xml: String, warnings: [String]) {
        var reader = Reader(archive: try KeyedArchive(data: data))
        return (try reader.contents(), reader.warnings)
    }

    struct Reader {
        let archive: KeyedArchive
        var warnings: [String] = []

        /// The named values of one stereotype of an element (`nil` values left out).
        func stereotype(_ element: ArchivedInstance, _ name: String) throws(ModelFileError) -> [String: PropertyList] {
            for (key, value) in try archive.dictionary(element["XDBucketForStereotypesstorage"]) where key == name {
                guard let stereotype = try archive.instance(value) else { return [:] }
                var values: [String: PropertyList] = [:]
                for (property, entry) in try archive.dictionary(stereotype["XDBucketForOwnedAttributesstorage"]) {
                    guard let holder = try archive.instance(entry) else { continue }
                    if let value = holder["_default"], try archive.resolve(value) != nil { values[property] = value }
                }
                return values
            }
            return [:]
        }

        func name(_ element: ArchivedInstance) throws(ModelFileError) -> String {
            guard let name = try archive.string(element["_name"]), !name.isEmpty else {
                throw archive.fail(element.uid, "\(element.className) without a name")
            }
            return name
        }

        func bool(_ values: [String: PropertyList], _ key: String) throws(ModelFileError) -> Bool? {
            guard let value = try archive.scalar(values[key]) else { return nil }
            switch value {
            case .boolean(let b): return b
            case .integer(let i): return i != 0
            case .string(let s): return s == "YES" || s == "1"
            default: return nil
            }
        }

        func text(_ values: [String: PropertyList], _ key: String) throws(ModelFileError) -> String? {
            switch try archive.scalar(values[key]) {
            case .string(let s)?: return s
            case .integer(let i)?: return String(i)
            case .real(let d)?: return String(d)
            default: return nil
            }
        }

        func integer(_ values: [String: PropertyList], _ key: String) throws(ModelFileError) -> Int64? {
            if case .integer(let i)? = try archive.scalar(values[key]) { return i }
            return nil
        }

        /// A userInfo dictionary: its string values (Xcode 3 kept Sync Services settings there as nested lists,
        /// which are not carried over).
        func userInfo(_ values: [String: PropertyList]) throws(ModelFileError) -> [(String, String)] {
            var result: [(String, String)] = []
            for (key, value) in try archive.dictionary(values["XD_PSK_userInfo"] ?? values["XD_PPSK_userInfo"]) {
                guard let (_, object) = try archive.resolve(value) else { continue }
                if case .string(let s) = object {
                    result.append((key, s))
                } else if ["NSString", "NSMutableString"].contains(archive.className(of: object) ?? ""),
                    let s = try archive.string(value)
                {
                    result.append((key, s))
                }
            }
            return result.sorted { $0.0 < $1.0 }
        }

        /// Lists of names (uniqueness constraints, compound indexes): names or named elements.
        func nameLists(_ value: PropertyList?) throws(ModelFileError) -> [[String]] {
            var lists: [[String]] = []
            for list in try archive.array(value) {
                var names: [String] = []
                for item in try archive.array(list) {
                    guard let (_, object) = try archive.resolve(item) else { continue }
                    if let className = archive.className(of: object), className.hasPrefix("XD"),
                        let element = try archive.instance(item)
                    {
                        names.append(try name(element))
                    } else if let string = try archive.string(item) {
                        names.append(string)
                    }
                }
                lists.append(names)
            }
            return lists
        }

        mutating func contents() throws(ModelFileError) -> String {
            guard let model = try archive.instance(.uid(archive.rootUID)), model.className == "XDPMModel" else {
                throw archive.fail(archive.rootUID, "not an Xcode 3 model: the root object is not an XDPMModel")
            }
            guard let package = try archive.instance(model["_xd_rootPackage"]) else {
                throw archive.fail(model.uid, "the model has no package of entities")
            }
            var entities: [(String, String)] = []
            for (_, value) in try archive.dictionary(package["XDBucketForClassesstorage"]) {
                guard let entity = try archive.instance(value) else { continue }
                guard entity.className == "XDPMEntity" else {
                    throw ModelFileError(
                        .unsupported, location: "$objects[\(entity.uid)]",
                        "Xcode 3 model: an element of class \(entity.className) is not read")
                }
                entities.append((try name(entity), try entityXML(entity)))
            }
            let body = entities.sorted { $0.0 < $1.0 }.map(\.1).joined()
            return """
                <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
                <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0">
                \(body)</model>
                """
        }

        mutating func entityXML(_ entity: ArchivedInstance) throws(ModelFileError) -> String {
            let entityName = try name(entity)
            let settings = try stereotype(entity, "XD_PStereotype")
            var attributes: [(String, String?)] = [("name", entityName)]
            attributes.append(("representedClassName", try text(settings, "XD_PSK_entityClassName")))
            for generalization in try archive.array(entity["XDBucketForGeneralizationsstorage"]) {
                if let link = try archive.instance(generalization), let parent = try archive.instance(link["_general"])
                {
                    attributes.append(("parentEntity", try name(parent)))
                }
            }
            if try bool(settings, "XD_PSK_isAbstract") == true { attributes.append(("isAbstract", "YES")) }
            attributes.append(("elementID", try text(settings, "XD_PSK_elementID")))
            attributes.append(("versionHashModifier", try text(settings, "XD_PSK_versionHashModifier")))
            let templates = try archive.array(settings["XD_PSK_fetchRequestsArray"])
            if !templates.isEmpty {
                warnings.append(
                    "entity \(entityName): \(templates.count) fetch request template(s) of the Xcode 3 model are not read"
                )
            }
            var properties: [(String, String)] = []
            for (_, value) in try archive.dictionary(entity["XDBucketForOwnedAttributesstorage"]) {
                guard let property = try archive.instance(value) else { continue }
                switch property.className {
                case "XDPMAttribute": properties.append((try name(property), try attributeXML(property)))
                case "XDPMRelationship": properties.append((try name(property), try relationshipXML(property)))
                default:
                    throw ModelFileError(
                        .unsupported, location: "$objects[\(property.uid)]",
                        "Xcode 3 model: entity \(entityName) has a property of class \(property.className), which is not read"
                    )
                }
            }
            var xml = "    <entity\(Self.attributes(attributes))>\n"
            xml += properties.sorted { $0.0 < $1.0 }.map(\.1).joined()
            let constraints = try nameLists(settings["XDPMUniquenessConstraints"]).filter { !$0.isEmpty }
            if !constraints.isEmpty {
                xml += "        <uniquenessConstraints>\n"
                for constraint in constraints {
                    xml += "            <uniquenessConstraint>\n"
                    for property in constraint {
                        xml += "                <constraint value=\"\(XMLText.escape(property))\"/>\n"
                    }
                    xml += "            </uniquenessConstraint>\n"
                }
                xml += "        </uniquenessConstraints>\n"
            }
            let indexes = try nameLists(settings["XDPMCompoundIndexes"]).filter { !$0.isEmpty }
            if !indexes.isEmpty {
                xml += "        <compoundIndexes>\n"
                for index in indexes {
                    xml += "            <compoundIndex>\n"
                    for property in index { xml += "                <index value=\"\(XMLText.escape(property))\"/>\n" }
                    xml += "            </compoundIndex>\n"
                }
                xml += "        </compoundIndexes>\n"
            }
            xml += Self.userInfoXML(try userInfo(settings), indent: "        ")
            return xml + "    </entity>\n"
        }

        func commonAttributes(_ property: ArchivedInstance) throws(ModelFileError) -> [(String, String?)] {
            let common = try stereotype(property, "XD_PPropStereotype")
            var attributes: [(String, String?)] = [("name", try name(property))]
            if try bool(common, "XD_PPSK_isOptional") == true { attributes.append(("optional", "YES")) }
            if try bool(common, "XD_PPSK_isTransient") == true { attributes.append(("transient", "YES")) }
            if try bool(common, "XD_PPSK_isIndexed") == true { attributes.append(("indexed", "YES")) }
            attributes.append(("elementID", try text(common, "XD_PPSK_elementID")))
            attributes.append(("versionHashModifier", try text(common, "XD_PPSK_versionHashModifier")))
            return attributes
        }

        func attributeXML(_ property: ArchivedInstance) throws(ModelFileError) -> String {
            let settings = try stereotype(property, "XD_PAtt_Stereotype")
            var attributes = try commonAttributes(property)
            let code = try integer(settings, "XD_PAttK_attributeType") ?? 0
            guard code >= 0, code <= Int64(UInt32.max), let type = AttributeType(rawValue: UInt32(code)) else {
                throw archive.fail(property.uid, "attribute '\(try name(property))' has unknown type code \(code)")
            }
            attributes.append(("attributeType", type.xcodeName))
            attributes.append(("defaultValueString", try text(settings, "XD_PAttK_defaultValueAsString")))
            attributes.append(("minValueString", try text(settings, "XD_PAttK_minValueString")))
            attributes.append(("maxValueString", try text(settings, "XD_PAttK_maxValueString")))
            attributes.append(("regularExpressionString", try text(settings, "XD_PAttK_regularExpressionString")))
            attributes.append(("valueTransformerName", try text(settings, "XD_PAttK_valueTransformerName")))
            if try bool(settings, "XD_PAttK_allowsExternalBinaryDataStorage") == true {
                attributes.append(("allowsExternalBinaryDataStorage", "YES"))
            }
            let info = try userInfo(try stereotype(property, "XD_PPropStereotype"))
            return element("attribute", attributes, info)
        }

        func relationshipXML(_ property: ArchivedInstance) throws(ModelFileError) -> String {
            let settings = try stereotype(property, "XD_PR_Stereotype")
            var attributes = try commonAttributes(property)
            let relationshipName = try name(property)
            guard let destination = try archive.instance(settings["XD_PRK_destination"]) else {
                throw archive.fail(property.uid, "relationship '\(relationshipName)' has no destination")
            }
            let toMany = try bool(settings, "XD_PRK_isToMany") == true
            if toMany { attributes.append(("toMany", "YES")) }
            if let min = try integer(settings, "XD_PRK_minCount"), min != 0 {
                attributes.append(("minCount", String(min)))
            }
            if let max = try integer(settings, "XD_PRK_maxCount"), max != 0 || !toMany {
                attributes.append(("maxCount", String(toMany ? max : 1)))
            } else if !toMany {
                attributes.append(("maxCount", "1"))
            }
            let rule = try integer(settings, "XD_PRK_deleteRule") ?? 1
            guard let deleteRule = DeleteRule(rawValue: Int(rule)) else {
                throw archive.fail(property.uid, "relationship '\(relationshipName)' has unknown delete rule \(rule)")
            }
            attributes.append(("deletionRule", deleteRule.xcodeName))
            if toMany, try bool(settings, "XD_PRK_ordered") == true { attributes.append(("ordered", "YES")) }
            attributes.append(("destinationEntity", try name(destination)))
            if let inverse = try archive.instance(settings["XD_PRK_inverseRelationship"]) {
                attributes.append(("inverseName", try name(inverse)))
                attributes.append(("inverseEntity", try name(destination)))
            }
            let info = try userInfo(try stereotype(property, "XD_PPropStereotype"))
            return element("relationship", attributes, info)
        }

        func element(_ tag: String, _ attributes: [(String, String?)], _ info: [(String, String)]) -> String {
            if info.isEmpty { return "        <\(tag)\(Self.attributes(attributes))/>\n" }
            return "        <\(tag)\(Self.attributes(attributes))>\n" + Self.userInfoXML(info, indent: "            ")
                + "        </\(tag)>\n"
        }

        static func attributes(_ pairs: [(String, String?)]) -> String {
            pairs.compactMap { key, value in value.map { " \(key)=\"\(XMLText.escape($0))\"" } }.joined()
        }

        static func userInfoXML(_ info: [(String, String)], indent: String) -> String {
            guard !info.isEmpty else { return "" }
            var xml = "\(indent)<userInfo>\n"
            for (key, value) in info {
                xml += "\(indent)    <entry key=\"\(XMLText.escape(key))\" value=\"\(XMLText.escape(value))\"/>\n"
            }
            return xml + "\(indent)</userInfo>\n"
        }
    }
}
