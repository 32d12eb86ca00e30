import Foundation

extension ManagedObjectContext {
    /// Every failure of the model's rules and the objects' own validation for the pending save.
    /// - Throws: ``ObjectGraphError`` when a value needed to check a rule cannot be read.
    func validationErrors() throws(ObjectGraphError) -> [ObjectValidationError] {
        try validationErrors(insertedObjects, updatedObjects, deletedObjects)
    }

    /// The failures of these inserted, updated and deleted objects (the change sets as they stand, read by the
    /// caller: a save reads them once for its derived values, its checks and its writes).
    func validationErrors(
        _ insertedObjects: [ManagedObject], _ updatedObjects: [ManagedObject], _ deletedObjects: [ManagedObject]
    ) throws(ObjectGraphError) -> [ObjectValidationError] {
        var errors: [ObjectValidationError] = []
        // Added only when there are some: appending none to the empty list still made it a new buffer, per object.
        func add(_ found: [ObjectValidationError]) { if !found.isEmpty { errors += found } }
        for object in insertedObjects {
            add(try Self.modelRuleErrors(object))
            do { try object.validateForInsert() } catch { errors.append(error) }
        }
        for object in updatedObjects {
            add(try Self.modelRuleErrors(object))
            do { try object.validateForUpdate() } catch { errors.append(error) }
        }
        for object in deletedObjects {
            add(try Self.denyErrors(object))
            do { try object.validateForDelete() } catch { errors.append(error) }
        }
        // An object inserted and deleted before a save is never saved, but its Deny rules hold all the same: what it
        // would leave behind points at an object that is nowhere (a save wrote that link as none, while the context
        // still showed it).
        if droppedCount > 0 {
            for object in deleted.objects where object.isInserted { add(try Self.denyErrors(object)) }
            // Nor may an object that is saved keep pointing at one (a save wrote the link as none).
            for object in insertedObjects { add(Self.danglingErrors(object)) }
            for object in updatedObjects { add(Self.danglingErrors(object)) }
        }
        return errors
    }

    /// Every rule of the model an object breaks as it stands, saved or not (what checking a stored document needs):
    /// required values, bounds, lengths, patterns, relationship counts (every to-many is read) and the object's
    /// per-key validators.
    /// - Parameter object: an object of this context.
    /// - Returns: every rule it breaks (none when it is valid).
    /// - Throws: ``ObjectGraphError`` when a value needed to check a rule cannot be read.
    public func ruleViolations(of object: ManagedObject) throws(ObjectGraphError) -> [ObjectValidationError] {
        try Self.modelRuleErrors(object, readingEveryRelationship: true)
    }

    /// Required values, bounds, lengths, patterns, relationship counts, and the object's per-key validators.
    ///
    /// A to-many relationship of a saved object that was never loaded is unchanged since it was stored and is not
    /// read for checking (so that editing one property never loads every large relationship).
    static func modelRuleErrors(_ object: ManagedObject, readingEveryRelationship: Bool = false)
        throws(ObjectGraphError)
        -> [ObjectValidationError]
    {
        var errors: [ObjectValidationError] = []
        let layout = object.entity
        // (Appended where each rule fails: a local function appending to `errors` made every call check its access
        // to the list at run time.)
        func failure(_ code: ObjectValidationError.Code, _ key: String, _ message: String) -> ObjectValidationError {
            ObjectValidationError(code, entityName: layout.name, key: key, objectID: object.objectID, message)
        }
        // A plain ManagedObject's per-key validator does nothing: its loaded values need reading only where the
        // model has a rule for them (a check that reads every relationship still reads everything).
        let plain = !readingEveryRelationship && type(of: object) == ManagedObject.self && !object.isFault
        for i in plain ? layout.ruledAttributeSlots : Array(layout.attributes.indices) {
            let attribute = layout.attributes[i]
            let value = try object.attributeValue(at: i)
            let key = attribute.name
            attributeRuleFailures(of: value, for: attribute) { errors.append(failure($0, key, $1)) }
            if plain { continue }
            do { try object.validateValue(PredicateValue(value), forKey: key) } catch { errors.append(error) }
        }
        for i in plain ? layout.ruledRelationshipSlots : Array(layout.relationships.indices) {
            let relationship = layout.relationships[i]
            let key = relationship.name
            if relationship.isToMany {
                if !readingEveryRelationship && !object.isInserted && object.loadedRelationshipCount(i) == nil {
                    continue
                }
                let destinations = try object.toManyObjects(at: i)
                let count = destinations.filter { !$0.isDeleted }.count
                if count < relationship.minCount {
                    errors.append(
                        failure(.tooFewObjects, key, "\(count) object(s); at least \(relationship.minCount) required"))
                }
                if relationship.maxCount > 0, count > relationship.maxCount {
                    errors.append(
                        failure(.tooManyObjects, key, "\(count) objects; at most \(relationship.maxCount) allowed"))
                }
                let value = PredicateValue.collection(destinations.map { .object($0) }, ordered: relationship.isOrdered)
                do { try object.validateValue(value, forKey: key) } catch { errors.append(error) }
            } else {
                let destination = try object.toOneObject(at: i)
                if (destination?.isDeleted ?? true) && !relationship.isOptional
                    && !relationship.isTransient
                {
                    errors.append(failure(.required, key, "a destination object is required"))
                }
                do { try object.validateValue(destination.map { .object($0) } ?? .null, forKey: key) } catch {
                    errors.append(error)
                }
            }
        }
        return errors
    }

    /// Whether ``attributeRuleFailures(of:for:_:)`` can fail for some value of the attribute.
    /// - Parameter attribute: the attribute.
    /// - Returns: `false` for an optional attribute without bounds, lengths or pattern.
    package static func attributeHasRules(_ attribute: AttributeDescription) -> Bool {
        let rules = attribute.validation
        return (!attribute.isOptional && !attribute.isTransient && attribute.derivationExpression == nil)
            || rules.minimumValue != nil || rules.maximumValue != nil || rules.minimumLength != nil
            || rules.maximumLength != nil || rules.regularExpression != nil
    }

    /// The model's rules for one attribute's value: required, bounds, lengths and pattern (what an object's save
    /// checks for it, apart from the object's own validators).
    /// - Parameters:
    ///   - value: the value, of the attribute's type.
    ///   - attribute: the attribute.
    ///   - fail: called with each rule broken and its message.
    package static func attributeRuleFailures(
        of value: AttributeValue, for attribute: AttributeDescription,
        _ fail: (ObjectValidationError.Code, String) -> Void
    ) {
        if value.isNull {
            if !attribute.isOptional && !attribute.isTransient && attribute.derivationExpression == nil {
                fail(.required, "a value is required")
            }
            return
        }
        let rules = attribute.validation
        if let minimum = rules.minimumValue,
            let o = ValueComparison.order(PredicateValue(value), PredicateValue(minimum)),
            o == .orderedAscending
        {
            fail(.belowMinimum, "\(value.literalText) is less than the minimum \(minimum.literalText)")
        }
        if let maximum = rules.maximumValue,
            let o = ValueComparison.order(PredicateValue(value), PredicateValue(maximum)),
            o == .orderedDescending
        {
            fail(.aboveMaximum, "\(value.literalText) is more than the maximum \(maximum.literalText)")
        }
        guard case .string(let s) = value else { return }
        if let minimum = rules.minimumLength, s.count < minimum {
            fail(.tooShort, "\"\(s)\" is shorter than \(minimum) characters")
        }
        if let maximum = rules.maximumLength, s.count > maximum {
            fail(.tooLong, "\"\(s)\" is longer than \(maximum) characters")
        }
        if let pattern = rules.regularExpression {
            do {
                if try !ValueComparison.matches(s, pattern, []) {
                    fail(.patternMismatch, "\"\(Diagnostics.quote(s))\" does not match /\(pattern)/")
                }
            } catch {
                fail(.patternMismatch, "the model's pattern /\(pattern)/ is not a valid regular expression")
            }
        }
    }

    /// The relationships of an object about to be saved that still hold an object inserted and deleted before the save
    /// (a No Action rule on the other side, or no inverse, leaves it there): the save would write them without it
    /// while the context shows it. Only relationships already loaded are read (one not loaded holds no new object),
    /// and those a Deny rule of the deleted object reports are left to that report.
    static func danglingErrors(_ object: ManagedObject) -> [ObjectValidationError] {
        var errors: [ObjectValidationError] = []
        let slots = object.relationshipSlots
        for i in slots.indices where !object.entity.relationships[i].isTransient {
            let held: [ManagedObject]
            switch slots[i] {
            case .toOne(let destination?): held = [destination]
            case .toMany(let collection): held = collection.objects
            default: continue
            }
            let dangling = held.first { destination in
                guard destination.isDeleted && destination.isInserted else { return false }
                // Reported as the destination's Deny rule already.
                guard let inverse = object.inverseIndex(of: i, in: destination) else { return true }
                return destination.entity.relationships[inverse].deleteRule != .deny
            }
            if let dangling {
                errors.append(
                    ObjectValidationError(
                        .danglingReference, entityName: object.entity.name, key: object.entity.relationships[i].name,
                        objectID: object.objectID,
                        "still points at \(dangling.objectID), which was deleted before it was ever saved"))
            }
        }
        return errors
    }

    /// Deny rules: a deleted object may not leave destinations behind on a Deny relationship.
    static func denyErrors(_ object: ManagedObject) throws(ObjectGraphError) -> [ObjectValidationError] {
        var errors: [ObjectValidationError] = []
        for i in object.entity.denySlots {
            let relationship = object.entity.relationships[i]
            let remaining =
                relationship.isToMany
                ? try object.toManyObjects(at: i).filter { !$0.isDeleted }
                : try object.toOneObject(at: i).map { $0.isDeleted ? [] : [$0] } ?? []
            if !remaining.isEmpty {
                errors.append(
                    ObjectValidationError(
                        .deleteDenied, entityName: object.entity.name, key: relationship.name,
                        objectID: object.objectID,
                        "cannot delete: '\(relationship.name)' still has \(remaining.count) object(s) and its rule is Deny"
                    ))
            }
        }
        return errors
    }
}
