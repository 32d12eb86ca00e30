import Foundation

extension ManagedObjectContext {
    /// Every failure of the model's rules and the objects' own validation for the pending save.
    /// - Throws: ``ObjectGraphError`` when a value needed to check a rule cannot be read.
    func validationErrors() throws(ObjectGraphError) -> [ObjectValidationError] {
        var errors: [ObjectValidationError] = []
        for object in insertedObjects {
            errors += try Self.modelRuleErrors(object)
            do { try object.validateForInsert() } catch { errors.append(error) }
        }
        for object in updatedObjects {
            errors += try Self.modelRuleErrors(object)
            do { try object.validateForUpdate() } catch { errors.append(error) }
        }
        for object in deletedObjects {
            errors += try Self.denyErrors(object)
            do { try object.validateForDelete() } catch { errors.append(error) }
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
        func fail(_ code: ObjectValidationError.Code, _ key: String, _ message: String) {
            errors.append(
                ObjectValidationError(code, entityName: layout.name, key: key, objectID: object.objectID, message))
        }
        for (i, attribute) in layout.attributes.enumerated() {
            let value = try object.attributeValue(at: i)
            let key = attribute.name
            if value.isNull {
                if !attribute.isOptional && !attribute.isTransient && attribute.derivationExpression == nil {
                    fail(.required, key, "a value is required")
                }
            } else {
                let rules = attribute.validation
                if let minimum = rules.minimumValue,
                    let o = ValueComparison.order(PredicateValue(value), PredicateValue(minimum)),
                    o == .orderedAscending
                {
                    fail(.belowMinimum, key, "\(value.literalText) is less than the minimum \(minimum.literalText)")
                }
                if let maximum = rules.maximumValue,
                    let o = ValueComparison.order(PredicateValue(value), PredicateValue(maximum)),
                    o == .orderedDescending
                {
                    fail(.aboveMaximum, key, "\(value.literalText) is more than the maximum \(maximum.literalText)")
                }
                if case .string(let s) = value {
                    if let minimum = rules.minimumLength, s.count < minimum {
                        fail(.tooShort, key, "\"\(s)\" is shorter than \(minimum) characters")
                    }
                    if let maximum = rules.maximumLength, s.count > maximum {
                        fail(.tooLong, key, "\"\(s)\" is longer than \(maximum) characters")
                    }
                    if let pattern = rules.regularExpression {
                        do {
                            if try !ValueComparison.matches(s, pattern, []) {
                                fail(.patternMismatch, key, "\"\(Diagnostics.quote(s))\" does not match /\(pattern)/")
                            }
                        } catch {
                            fail(
                                .patternMismatch, key,
                                "the model's pattern /\(pattern)/ is not a valid regular expression")
                        }
                    }
                }
            }
            do { try object.validateValue(PredicateValue(value), forKey: key) } catch { errors.append(error) }
        }
        for (i, relationship) in layout.relationships.enumerated() {
            let key = relationship.name
            if relationship.isToMany {
                if !readingEveryRelationship && !object.isInserted && object.loadedRelationshipCount(i) == nil {
                    continue
                }
                let destinations = try object.toManyObjects(at: i)
                let count = destinations.filter { !$0.isDeleted }.count
                if count < relationship.minCount {
                    fail(.tooFewObjects, key, "\(count) object(s); at least \(relationship.minCount) required")
                }
                if relationship.maxCount > 0, count > relationship.maxCount {
                    fail(.tooManyObjects, key, "\(count) objects; at most \(relationship.maxCount) allowed")
                }
                let value = PredicateValue.collection(destinations.map { .object($0) }, ordered: relationship.isOrdered)
                do { try object.validateValue(value, forKey: key) } catch { errors.append(error) }
            } else {
                let destination = try object.toOneObject(at: i)
                if (destination == nil || destination!.isDeleted) && !relationship.isOptional
                    && !relationship.isTransient
                {
                    fail(.required, key, "a destination object is required")
                }
                do { try object.validateValue(destination.map { .object($0) } ?? .null, forKey: key) } catch {
                    errors.append(error)
                }
            }
        }
        return errors
    }

    /// Deny rules: a deleted object may not leave destinations behind on a Deny relationship.
    static func denyErrors(_ object: ManagedObject) throws(ObjectGraphError) -> [ObjectValidationError] {
        var errors: [ObjectValidationError] = []
        for (i, relationship) in object.entity.relationships.enumerated() where relationship.deleteRule == .deny {
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
