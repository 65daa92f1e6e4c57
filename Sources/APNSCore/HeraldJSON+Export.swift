// APNSCore's payloads hold `JSONValue`s (custom data, Live Activity content), so its users get the JSON
// model with it: one JSON implementation (HeraldJSON) serves the APNs model, the server and JWTs.
@_exported import HeraldJSON
