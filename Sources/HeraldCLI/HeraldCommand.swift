import Foundation

/// The `herald` command tree: `herald <command> [options]`.
public enum HeraldCommand {
    public static let version = "0.1.0"

    static var commands: [Command.Type] {
        [ServeCommand.self, AppsCommand.self, CredentialsCommand.self, WebhooksCommand.self, InstallationsCommand.self, PushCommand.self,
         SendCommand.self, SimCommand.self, DeviceCommand.self]
    }

    /// Runs the command line and exits with its status. Call from `main.swift`; blocking the main
    /// thread here is fine, the work runs on the cooperative pool and the event loops.
    public static func main() -> Never {
        signal(SIGPIPE, SIG_IGN)
        let args = Array(CommandLine.arguments.dropFirst())
        let done = DispatchSemaphore(value: 0)
        let code = ExitCode()
        Task {
            code.value = await run(args)
            done.signal()
        }
        done.wait()
        exit(code.value)
    }

    /// Runs one command line and returns the exit status (tests call this directly).
    public static func run(_ args: [String]) async -> Int32 {
        guard let first = args.first, first != "--help", first != "-h", first != "help" else {
            print(rootHelp())
            return args.isEmpty ? 64 : 0
        }
        if first == "--version" {
            print("herald \(version)")
            return 0
        }
        guard var command = commands.first(where: { $0.name == first }) else {
            Console.error("error: unknown command '\(first)'. Run `herald --help` for the commands.")
            return 64
        }
        var rest = Array(args.dropFirst())
        // Walk down `herald sim key ...`: a subcommand's name is its parent's plus one word.
        while let next = rest.first, let sub = command.subcommands.first(where: { $0.name == "\(command.name) \(next)" }) {
            command = sub
            rest.removeFirst()
        }
        if rest.contains("--help") || rest.contains("-h") {
            print(command.helpText())
            return 0
        }
        do {
            let parsed = try ParsedArguments(rest, options: command.options)
            return try await command.run(parsed)
        } catch let error as UsageError {
            Console.error("error: \(error.message)\nRun `herald \(command.name) --help` for usage.")
            return 64
        } catch {
            Console.error("error: \(error)")
            return 1
        }
    }

    static func rootHelp() -> String {
        var text = """
        OVERVIEW: Herald, a self-hosted push notification platform for iOS apps.

        USAGE: herald <command> [options]

        COMMANDS:

        """
        for c in commands { text += "  \(c.name.padding(toLength: 14, withPad: " ", startingAt: 0))\(c.abstract)\n" }
        text += "\nRun `herald <command> --help` for a command's options. `herald --version` prints the version."
        return text
    }
}

private final class ExitCode: @unchecked Sendable {
    var value: Int32 = 0
}
