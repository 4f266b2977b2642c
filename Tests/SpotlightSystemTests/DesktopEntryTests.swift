import Foundation
import XCTest
@testable import SpotlightSystem

/// The freedesktop desktop-entry format: values, escapes, Exec quoting and field codes; registration.
final class DesktopEntryTests: SystemTestCase {
    func testParsesGroupsKeysAndEscapes() {
        let entry = DesktopEntry(parsing: """
            # comment
            [Desktop Entry]
            Type=Application
            Name=Colleagues
            Name[fr]=Collègues
            Comment=Two\\slines\\nhere \\\\ ok
            Terminal = true

            [Desktop Action New]
            Name=New
            """)
        XCTAssertEqual(entry["Name"], "Colleagues")
        XCTAssertEqual(entry["Name[fr]"], "Collègues")
        XCTAssertEqual(entry["Comment"], "Two lines\nhere \\ ok")
        XCTAssertEqual(entry.bool("Terminal"), true)
        XCTAssertEqual(entry["Name", group: "Desktop Action New"], "New")
        XCTAssertNil(entry["Exec"])
        let reparsed = DesktopEntry(parsing: entry.serialized())
        XCTAssertEqual(reparsed["Comment"], "Two lines\nhere \\ ok")
        XCTAssertEqual(reparsed, entry)
    }

    func testExecQuotingAndFieldCodes() throws {
        let table: [(String, [String])] = [
            (#"/usr/bin/app %u"#, ["/usr/bin/app", "URL"]),
            (#""/opt/My App/app" --flag %U"#, ["/opt/My App/app", "--flag", "URL"]),
            (#"app "a \"quoted\" \$dollar \\ back" %%literal"#, ["app", #"a "quoted" $dollar \ back"#, "%literal", "URL"]),
            (#"app %i %c %k %f"#, ["app", "--icon", "icon-name", "Name", "/x.desktop", "URL"]),
            (#"app --no-url"#, ["app", "--no-url", "URL"]),
            (#"app %d %n"#, ["app", "URL"]),
        ]
        for (exec, expected) in table {
            XCTAssertEqual(try DesktopEntry.expandExec(exec, url: "URL", icon: "icon-name", name: "Name", desktopFile: "/x.desktop"),
                           expected, exec)
        }
        XCTAssertThrowsError(try DesktopEntry.splitExec(#"app "unterminated"#))
        XCTAssertThrowsError(try DesktopEntry.splitExec("app 50%off"))
        let arguments: [DesktopEntry.ExecArgument] = [.literal("/opt/My App/app"), .literal(#"a"b$c\d`e"#), .literal("100%"), .fieldCode("u")]
        XCTAssertEqual(try DesktopEntry.splitExec(DesktopEntry.joinExec(arguments)), arguments)
        // Through the file's string escapes too.
        var entry = DesktopEntry()
        entry["Exec"] = DesktopEntry.joinExec(arguments)
        XCTAssertEqual(try DesktopEntry.splitExec(DesktopEntry(parsing: entry.serialized())["Exec"] ?? ""), arguments)
    }

    func testRegisterFindAndUnregister() throws {
        let app = try SpotlightApp.register(applicationIdentifier: "org.example.Notes App", displayName: "Notes", icon: "/icons/notes.png",
                                            executable: URL(fileURLWithPath: "/opt/notes/bin/notes"), terminal: false,
                                            supportsSearchContinuation: true)
        XCTAssertEqual(app.desktopFile?.lastPathComponent, "org.example.Notes_App.desktop")
        XCTAssertEqual(app.exec, "/opt/notes/bin/notes %u")
        XCTAssertEqual(app.reindexExec, "/opt/notes/bin/notes --openspotlight-reindex %f")
        let found = try XCTUnwrap(SpotlightApp.registered("org.example.Notes App"))
        XCTAssertEqual(found.displayName, "Notes")
        XCTAssertEqual(found.icon, "/icons/notes.png")
        XCTAssertTrue(found.supportsSearchContinuation)
        XCTAssertFalse(found.terminal)
        XCTAssertEqual(SpotlightApp.find("notes")?.applicationIdentifier, "org.example.Notes App")
        XCTAssertEqual(SpotlightApp.find("NOTES")?.applicationIdentifier, "org.example.Notes App")
        try SpotlightApp.unregister("org.example.Notes App")
        XCTAssertNil(SpotlightApp.registered("org.example.Notes App"))
    }

    func testSystemWideRegistrationsAreFoundAfterTheUsers() throws {
        let system = temporary.appendingPathComponent("share")
        setenv("XDG_DATA_DIRS", system.path, 1)
        var systemApp = SpotlightApp(applicationIdentifier: "org.example.maps", displayName: "Maps (system)", exec: "maps %u")
        try systemApp.write(to: system.appendingPathComponent("applications"))
        XCTAssertEqual(SpotlightApp.registered("org.example.maps")?.displayName, "Maps (system)")
        var userApp = systemApp
        userApp.displayName = "Maps"
        try userApp.write()
        XCTAssertEqual(SpotlightApp.registered("org.example.maps")?.displayName, "Maps")
        // An entry of another program (no X-OpenSpotlight-AppID) is not an app of ours.
        try "[Desktop Entry]\nType=Application\nName=Editor\nExec=editor %F\n"
            .write(to: dataHome.appendingPathComponent("applications/editor.desktop"), atomically: true, encoding: .utf8)
        XCTAssertEqual(SpotlightApp.all().map(\.applicationIdentifier), ["org.example.maps"])
    }

    func testActionURIs() {
        XCTAssertEqual(Launcher.telURI("+1 (555) 010-7"), "tel:+1(555)010-7")
        XCTAssertEqual(Launcher.geoURI(latitude: 48.8708, longitude: 2.3319), "geo:48.8708,2.3319")
        XCTAssertEqual(Launcher.geoURI(latitude: -33.5, longitude: 151), "geo:-33.5,151")
    }
}
