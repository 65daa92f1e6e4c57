import Foundation

/// The `herald` command tree. Subcommands are added as their modules land.
public enum HeraldCommand {
    public static let version = "0.1.0"

    public static func main() -> Never {
        let args = Array(CommandLine.arguments.dropFirst())
        if args.first == "--version" { print("herald \(version)"); exit(0) }
        print("herald \(version): usage: herald <command> [options]\nRun `herald --help` for the commands.")
        exit(args.isEmpty ? 64 : 0)
    }
}
