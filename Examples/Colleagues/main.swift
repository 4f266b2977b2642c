// Colleagues: the seed's sample app as a command-line program. It makes its company directory searchable from
// `spotlight`, as Viewed Records (activities) or All Records (Core Spotlight items), and shows the employee the
// person chose when the system continues a result in it.

import Foundation
import OpenCoreSpotlight
import SpotlightSystem

OpenSpotlight.configure(applicationIdentifier: "com.example.colleagues")

// Run as our own reindex extension when the system asks (exits).
await IndexExtensionRunner.handleLaunchArguments(CommandLine.arguments, handler: ColleaguesIndexExtension())

do {
    try SpotlightApp.register(displayName: "Colleagues", icon: "system-users",
                              comment: "The company directory", terminal: true, noDisplay: true,
                              supportsSearchContinuation: true)
} catch {
    log("could not register with the system: \(error)")
}

/// The activity of the screen on show; held while it is current, as Apple asks.
var currentActivity: NSUserActivity?

/// Shows an employee, and records the visit as an activity unless indexing is disabled.
@MainActor
func view(_ employee: Employee) {
    print(employee.card)
    let setting = Settings.load().indexing
    let activity = NSUserActivity(activityType: "com.example.colleagues.view-employee")
    activity.title = employee.name
    activity.userInfo = ["id": employee.id]
    activity.requiredUserInfoKeys = ["id"]
    activity.keywords = [employee.department, employee.jobTitle]
    activity.persistentIdentifier = employee.id
    activity.isEligibleForSearch = setting != .disabled
    // With All Records the activity and the item are one result (without a related identifier, both appear).
    // Otherwise the item does not exist yet, and Apple does not save an activity whose relatedUniqueIdentifier names
    // a missing item: the weak relation keeps the activity, and merges it with the item once All Records
    // indexes it (so Brent does not appear twice after the setting changes).
    let attributes = employee.attributes(relatedItem: setting == .allRecords)
    if setting != .allRecords { attributes.weakRelatedUniqueIdentifier = employee.id }
    activity.contentAttributeSet = attributes
    activity.becomeCurrent()
    currentActivity = activity
}

func apply(_ setting: IndexingSetting) async throws {
    var settings = Settings.load()
    settings.indexing = setting
    try settings.save()
    let index = CSSearchableIndex.default()
    switch setting {
    case .disabled:
        try await index.deleteAllSearchableItems()
        await NSUserActivity.deleteAllSavedUserActivities()
        print("Indexing disabled: every item and activity deleted.")
    case .viewedRecords:
        try await index.deleteSearchableItems(withDomainIdentifiers: ["employees"])
        print("Only viewed employees are searchable now.")
    case .allRecords:
        try await index.indexSearchableItems(Directory.all.map(\.searchableItem))
        print("All \(Directory.all.count) employees are searchable now.")
    }
}

/// Deletes items by identifier, by domain (and its subdomains) or all of them.
func delete(_ arguments: [String]) async throws -> Bool {
    let index = CSSearchableIndex.default()
    let values = Array(arguments.dropFirst())
    switch arguments.first {
    case "--all":
        try await index.deleteAllSearchableItems()
        print("Deleted every item.")
    case "--id" where !values.isEmpty:
        try await index.deleteSearchableItems(withIdentifiers: values)
        print("Deleted \(values.joined(separator: ", ")).")
    case "--domain" where !values.isEmpty:
        try await index.deleteSearchableItems(withDomainIdentifiers: values)
        print("Deleted the domains \(values.joined(separator: ", ")).")
    default:
        return false
    }
    return true
}

let continuation = ContinuationHandler()
continuation.onContinueUserActivity(CSSearchableItemActionType) { activity in
    guard let id = activity.userInfo?[CSSearchableItemActivityIdentifier] as? String, let employee = Directory.employee(id: id) else {
        print("That employee is no longer in the directory.")
        return
    }
    view(employee)
}
continuation.onContinueUserActivity("com.example.colleagues.view-employee") { activity in
    guard let id = activity.userInfo?["id"] as? String, let employee = Directory.employee(id: id) else {
        print("That employee is no longer in the directory.")
        return
    }
    view(employee)
}
continuation.onContinueUserActivity(CSQueryContinuationActionType) { activity in
    let query = activity.userInfo?[CSSearchQueryString] as? String ?? ""
    let found = Directory.search(query)
    print("Search \"\(query)\": \(found.count) employee\(found.count == 1 ? "" : "s")")
    for employee in found { print("  \(employee.name) — \(employee.jobTitle), \(employee.department)") }
}

if ContinuationHandler.containsContinuation(CommandLine.arguments) {
    exit(await continuation.handleLaunchArguments(CommandLine.arguments) ? 0 : 1)
}

// Requests the system could not hand to the extension wait for our launch.
await IndexExtensionRunner.processPendingRequests(delegate: ColleaguesIndexExtension())

let usage = """
    usage: colleagues list
           colleagues view <name or id>          show an employee (recorded as an activity)
           colleagues setting [disabled | viewed-records | all-records]
           colleagues delete --id <id>… | --domain <domain>… | --all
           colleagues search <words>
           colleagues --continue-activity <payload>   (what `spotlight open` runs)
    """

var arguments = Array(CommandLine.arguments.dropFirst())
let command = arguments.isEmpty ? "list" : arguments.removeFirst()
do {
    switch command {
    case "list":
        for employee in Directory.all {
            print("\(employee.id.padding(toLength: 12, withPad: " ", startingAt: 0)) \(employee.name) — \(employee.jobTitle), \(employee.department)")
        }
    case "view", "show":
        let name = arguments.joined(separator: " ")
        guard let employee = Directory.find(name) else {
            print("No employee named \"\(name)\".")
            exit(1)
        }
        view(employee)
    case "setting":
        guard let value = arguments.first else {
            print(Settings.load().indexing.rawValue)
            break
        }
        guard let setting = IndexingSetting(rawValue: value) else {
            print("settings: \(IndexingSetting.allCases.map(\.rawValue).joined(separator: ", "))")
            exit(2)
        }
        try await apply(setting)
    case "delete":
        guard try await delete(arguments) else {
            print(usage)
            exit(2)
        }
    case "search":
        for employee in Directory.search(arguments.joined(separator: " ")) {
            print("\(employee.name) — \(employee.jobTitle), \(employee.department)")
        }
    case "help", "--help", "-h":
        print(usage)
    default:
        print(usage)
        exit(2)
    }
} catch {
    print("colleagues: \(error)")
    exit(1)
}
