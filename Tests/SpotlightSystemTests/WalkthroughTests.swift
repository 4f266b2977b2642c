import Foundation
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// The README's and System.md's walkthroughs, command by command with the built binaries, as a new user runs them:
/// `HOME` a fresh folder, no `XDG_*` or `OPENSPOTLIGHT_HOME`. Everything lands under that home (and `TMPDIR`);
/// nothing of the account's real home changes.
final class WalkthroughTests: SystemTestCase {
    /// What our programs could write in a home, relative to it.
    static let ourPaths = [".local/share/openspotlight", ".local/share/applications", ".config/colleagues",
                           ".config/smoothies", ".local/state/smoothies", ".cache/openspotlight-demo"]

    func testTheWalkthroughsStayInTheirHome() throws {
        let home = temporary.appendingPathComponent("walk-home")
        let tmp = temporary.appendingPathComponent("walk-tmp")
        for dir in [home, tmp] { try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true) }
        let environment = ["HOME": home.path, "TMPDIR": tmp.path, "OPENSPOTLIGHT_HOME": "", "XDG_DATA_HOME": "",
                           "XDG_CONFIG_HOME": "", "XDG_STATE_HOME": "", "XDG_CACHE_HOME": "", "XDG_RUNTIME_DIR": "",
                           "OPENSPOTLIGHT_SESSION": "walkthrough"]
        let realHome = URL(fileURLWithPath: String(cString: getpwuid(getuid()).pointee.pw_dir))
        let before = Self.snapshot(of: realHome)

        // README, "Spotlight for the whole machine".
        try succeed("colleagues", ["view", "Brent Reid"], environment: environment)
        let found = try succeed("spotlight", ["brent", "reid"], environment: environment)
        XCTAssertEqual(found.stdout, """
            Colleagues  (com.example.colleagues)
                1. Brent Reid — Senior Software Engineer, Engineering  (visited once)    open, call, directions

            """)
        let opened = try succeed("spotlight", ["open", "1"], environment: environment)
        XCTAssertTrue(opened.stdout.contains("Brent Reid") && opened.stdout.contains("brent.reid@example.com"), opened.stdout)
        XCTAssertEqual(try succeed("spotlight", ["call", "1", "--dry-run"], environment: environment).stdout, "tel:+15550101\n")

        // System.md: All Records, the department, Brent once; his card from the app.
        try succeed("colleagues", ["setting", "all-records"], environment: environment)
        let engineering = try succeed("spotlight", ["engineering"], environment: environment).stdout
        for name in ColleaguesEndToEndTests.engineering { XCTAssertTrue(engineering.contains(name), engineering) }
        XCTAssertEqual(engineering.components(separatedBy: "Brent Reid").count - 1, 1, engineering)
        try succeed("spotlight", ["brent", "reid"], environment: environment)
        XCTAssertTrue(try succeed("spotlight", ["data", "1"], environment: environment).stdout.hasPrefix("BEGIN:VCARD"))

        // Smoothies: its menu, an order (state), a reindex through its extension, the system search.
        try succeed("smoothies", ["order", "Kiwi Cutie"], environment: environment)
        try succeed("spotlight", ["reindex", "smoothies"], environment: environment)
        let kiwi = try succeed("spotlight", ["kiwi"], environment: environment).stdout
        XCTAssertEqual(kiwi.components(separatedBy: "Kiwi Cutie").count - 1, 1, kiwi)
        try succeed("spotlight", ["doctor"], environment: environment)
        try succeed("spotlight", ["apps"], environment: environment)

        for path in [".local/share/openspotlight/apps/com.example.colleagues", ".local/share/applications/com.example.colleagues.desktop",
                     ".config/colleagues/settings.json", ".local/state/smoothies/orders.json"] {
            XCTAssertTrue(FileManager.default.fileExists(atPath: home.appendingPathComponent(path).path), "\(path) under HOME")
        }
        XCTAssertEqual(Self.snapshot(of: realHome), before, "nothing of the account's real home changed")
    }

    /// Every file under our paths in a home, with its size and modification time.
    static func snapshot(of home: URL) -> [String: String] {
        var files: [String: String] = [:]
        for path in ourPaths {
            let root = home.appendingPathComponent(path)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory) else { continue }
            let paths = isDirectory.boolValue ? ((try? FileManager.default.subpathsOfDirectory(atPath: root.path)) ?? []).map { path + "/" + $0 } : [path]
            for relative in paths {
                let attributes = try? FileManager.default.attributesOfItem(atPath: home.appendingPathComponent(relative).path)
                files[relative] = "\(attributes?[.size] ?? 0) \((attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
            }
        }
        return files
    }
}
