/// The error body every Herald endpoint uses: `{"error":{"code":"...","message":"...","field":"..."}}`.
struct APIErrorBody: Decodable {
    struct Detail: Decodable {
        var code: String?
        var message: String?
        var field: String?
    }
    var error: Detail
}
