// HeraldCrypto: OpenSSL 3 (EVP APIs only, nothing deprecated) for the rest of Herald.
//
// What is here
// - Keys: `PrivateKey` (.p8 / PKCS#8, traditional and encrypted PEM, DER; P-256 and RSA generation;
//   PKCS#8 export, optionally encrypted), `PublicKey` (SPKI PEM/DER, from a certificate).
// - Certificates: `Certificate` (PEM/DER in and out, bundles, subject/UID/CN/OU, validity, fingerprint,
//   raw extension values, SANs), `CertificateIdentity` (key + leaf + chain; a `ck.pem`), `PKCS12` (.p12 in
//   and out, legacy RC2/3DES archives included), `CertificateAuthority` (local CA, server and APNs client
//   certificates), `APNsCertificateInfo` (bundle ID, topics, environments of an APNs certificate).
// - ES256: `PrivateKey.signES256` (raw r||s), `PublicKey.verifyES256` (raw or DER), `ECDSASignature`
//   conversions, `JWT` (build, lenient parse, verify) with `JWT.Value` for header and claim values.
// - Utilities: `Digest` (SHA-256, HMAC-SHA256), `SecureRandom`, `ConstantTime`, `Base64URL`,
//   `KeyDerivation` (HKDF-SHA256, PBKDF2-SHA256), `SecretBox` (AES-256-GCM for secrets at rest).
//
// Thread-safety
// Every public type is immutable after creation and Sendable. The classes that own OpenSSL handles
// (`PrivateKey`, `PublicKey`, `Certificate`) are `@unchecked Sendable` because OpenSSL documents
// EVP_PKEY and X509 as safe for concurrent read-only use, and nothing here mutates them after creation.
// Signing and verifying reuse one cached EVP_PKEY_CTX per key, taken with a try-lock: a caller that finds
// it busy uses a temporary context instead of waiting, so concurrent callers never queue behind each other.
// Keep `PublicKey` objects around (e.g. one per APNs key ID): creating one from PEM/DER costs ~5x a verify.
//
// Errors
// User-caused failures throw `CryptoError` (keys, certificates, archives, SecretBox) or `JWTError`
// (tokens); each case's description says what is wrong and what to do. Operations leave OpenSSL's
// per-thread error queue empty, so the TLS layer's `SSL_get_error` never sees stale errors.
//
// For the TLS layer (package access): `PrivateKey.evpPKey`, `Certificate.x509`,
// `CertificateIdentity.chainX509`. They are borrowed: up-ref before handing them to an API that takes
// ownership.
