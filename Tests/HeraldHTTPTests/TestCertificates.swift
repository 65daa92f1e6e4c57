import Foundation
import HeraldIO
import HeraldCrypto
import HeraldTestSupport

/// A throwaway CA and a localhost server certificate made with the openssl command line, so these
/// transport tests do not depend on the code under test to produce their fixtures.
struct TestCertificates {
    let directory: URL
    var caFile: String { directory.appendingPathComponent("ca.pem").path }
    var serverIdentity: CertificateIdentity {
        try! CertificateIdentity(certificateFile: directory.appendingPathComponent("server.pem").path,
                         privateKeyFile: directory.appendingPathComponent("server.key").path)
    }

    static let shared: TestCertificates = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("herald-http-tests-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let script = """
        set -e
        cd '\(dir.path)'
        openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out ca.pem -days 2 -subj /CN=HeraldTestCA 2>/dev/null
        openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout server.key -out server.csr -subj /CN=localhost 2>/dev/null
        printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\\n' > ext.cnf
        openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 2 -extfile ext.cnf 2>/dev/null
        """
        let status = try! ChildProcess("/bin/sh", ["-c", script], output: .inherit, error: .inherit).waitForExit()
        precondition(status == 0, "openssl failed to make test certificates")
        return TestCertificates(directory: dir)
    }()
}
