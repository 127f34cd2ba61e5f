import OpenCoreData
import Testing

/// A to-many relationship's value is a set, never nil. Unchecking "Optional" in Xcode's model editor only makes its
/// minimum and maximum counts apply even when the set is empty; with no minimum count an empty set is valid
/// (`NSRelationshipDescription`, "Cardinality": the counts are enforced when the value is not nil, 0 meaning
/// undefined). JSQCoreDataKit's suite saves companies without employees through a required `employees` relationship
/// on Apple platforms.
@Suite struct RequiredToManyValidationTests {
    /// Company ↔ Employee, as in JSQCoreDataKit's example model: `employees` is required (not optional) with no counts.
    private static func makeStack(employeesMinCount: Int = 0) throws -> NSManagedObjectContext {
        let company = NSEntityDescription()
        company.name = "Company"
        let employee = NSEntityDescription()
        employee.name = "Employee"
        let name = NSAttributeDescription()
        name.name = "name"
        name.attributeType = .stringAttributeType
        let employees = NSRelationshipDescription()
        employees.name = "employees"
        employees.destinationEntity = employee
        employees.maxCount = 0
        employees.minCount = employeesMinCount
        employees.isOptional = false
        employees.deleteRule = .cascadeDeleteRule
        let companyOfEmployee = NSRelationshipDescription()
        companyOfEmployee.name = "company"
        companyOfEmployee.destinationEntity = company
        companyOfEmployee.maxCount = 1
        companyOfEmployee.isOptional = true
        employees.inverseRelationship = companyOfEmployee
        companyOfEmployee.inverseRelationship = employees
        company.properties = [name, employees]
        let employeeName = NSAttributeDescription()
        employeeName.name = "name"
        employeeName.attributeType = .stringAttributeType
        employee.properties = [employeeName, companyOfEmployee]
        let model = NSManagedObjectModel()
        model.entities = [company, employee]
        let coordinator = NSPersistentStoreCoordinator(managedObjectModel: model)
        try coordinator.addPersistentStore(ofType: NSInMemoryStoreType, configurationName: nil, at: nil, options: nil)
        let context = NSManagedObjectContext(concurrencyType: .privateQueueConcurrencyType)
        context.persistentStoreCoordinator = coordinator
        return context
    }

    @Test func anEmptyRequiredToManyWithoutAMinimumCountSaves() throws {
        let context = try Self.makeStack()
        try context.performAndWait {
            let company = NSEntityDescription.insertNewObject(forEntityName: "Company", into: context)
            company.setValue("Hexed Bits", forKey: "name")
            #expect(throws: Never.self) { try company.validateForInsert() }
            try context.save()
            #expect(!company.objectID.isTemporaryID)

            // Emptying it later is an update the same rule allows.
            let employee = NSEntityDescription.insertNewObject(forEntityName: "Employee", into: context)
            employee.setValue("Jesse", forKey: "name")
            company.mutableSetValue(forKey: "employees").add(employee)
            try context.save()
            company.mutableSetValue(forKey: "employees").remove(employee)
            #expect(throws: Never.self) { try company.validateForUpdate() }
            try context.save()
            #expect((company.value(forKey: "employees") as? Set<NSManagedObject>)?.isEmpty == true)
        }
    }

    @Test func anEmptyRequiredToManyWithAMinimumCountFailsWith1580() throws {
        let context = try Self.makeStack(employeesMinCount: 1)
        context.performAndWait {
            let company = NSEntityDescription.insertNewObject(forEntityName: "Company", into: context)
            company.setValue("Hexed Bits", forKey: "name")
            let error = #expect(throws: NSError.self) { try context.save() }
            #expect(error?.domain == NSCocoaErrorDomain)
            #expect(error?.code == NSValidationRelationshipLacksMinimumCountError)
            #expect(error?.userInfo[NSValidationKeyErrorKey] as? String == "employees")
        }
    }
}
