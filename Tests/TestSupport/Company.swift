public import ObjectGraph

/// Employees and departments under each delete rule.
public enum Company {
    public static func model(departmentRule: DeleteRule = .cascade) throws -> ManagedObjectModel {
        try ManagedObjectModel(
            entities: [
                EntityDescription(
                    name: "Department",
                    attributes: [AttributeDescription(name: "name", type: .string, isOptional: false)],
                    relationships: [
                        RelationshipDescription(
                            name: "employees", destination: "Employee", inverse: "department", toMany: true,
                            deleteRule: departmentRule),
                        RelationshipDescription(
                            name: "manager", destination: "Employee", inverse: "managedDepartment", deleteRule: .deny),
                    ]),
                EntityDescription(
                    name: "Employee",
                    attributes: [
                        AttributeDescription(name: "name", type: .string, isOptional: false),
                        AttributeDescription(
                            name: "salary", type: .integer32, defaultValue: .integer32(1000),
                            validation: ValidationRules(minimumValue: .integer32(0), maximumValue: .integer32(100_000))),
                        AttributeDescription(
                            name: "email", type: .string,
                            validation: ValidationRules(maximumLength: 40, regularExpression: "[^@]+@[^@]+")),
                    ],
                    relationships: [
                        RelationshipDescription(name: "department", destination: "Department", inverse: "employees"),
                        RelationshipDescription(
                            name: "managedDepartment", destination: "Department", inverse: "manager",
                            deleteRule: .nullify),
                    ]),
            ],
            configurations: [])
    }

    public static func context(departmentRule: DeleteRule = .cascade, type: String = "InMemory") throws
        -> ManagedObjectContext
    {
        let coordinator = PersistentStoreCoordinator(model: try model(departmentRule: departmentRule))
        try coordinator.addPersistentStore(type: type)
        return ManagedObjectContext(coordinator: coordinator)
    }

    @discardableResult
    public static func department(_ name: String, staff: [String], in context: ManagedObjectContext) throws
        -> ManagedObject
    {
        let department = try context.insertNewObject(forEntityName: "Department")
        try department.setValue(.string(name), forKey: "name")
        for person in staff {
            let employee = try context.insertNewObject(forEntityName: "Employee")
            try employee.setValue(.string(person), forKey: "name")
            try employee.setObject(department, forKey: "department")
        }
        return department
    }

    public static func names(_ context: ManagedObjectContext, _ entity: String) throws -> [String] {
        try context.fetch(FetchRequest(entityName: entity, sortDescriptors: [ObjectSortDescriptor(keyPath: "name")]))
            .map { try $0.attributeValue(forKey: "name").stringValue ?? "?" }
    }
}
