import Foundation

/// File extensions for the attachment types notifications can show (images, audio, video).
enum MediaType {
    private static let extensionsByMIMEType: [String: String] = [
        "image/jpeg": "jpg", "image/jpg": "jpg", "image/pjpeg": "jpg", "image/png": "png", "image/gif": "gif",
        "image/heic": "heic", "image/heif": "heif", "image/webp": "webp",
        "audio/mpeg": "mp3", "audio/mp3": "mp3", "audio/mp4": "m4a", "audio/x-m4a": "m4a", "audio/aac": "aac",
        "audio/wav": "wav", "audio/x-wav": "wav", "audio/aiff": "aiff", "audio/x-aiff": "aiff",
        "video/mp4": "mp4", "video/quicktime": "mov", "video/mpeg": "mpg", "video/x-m4v": "m4v",
        "video/3gpp": "3gp",
    ]

    private static let knownExtensions = Set(extensionsByMIMEType.values).union(["jpeg", "mpeg", "avi"])

    /// The extension for a Content-Type such as "image/jpeg; charset=binary", if it is a media type.
    static func fileExtension(forContentType contentType: String?) -> String? {
        guard let contentType else { return nil }
        let mime = contentType.split(separator: ";").first.map(String.init)?
            .trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        return extensionsByMIMEType[mime]
    }

    /// The URL path's extension when it names a media type (so "/img/cat.JPG" gives "jpg", "/api/img" nothing).
    static func fileExtension(forPathExtension pathExtension: String) -> String? {
        let lowered = pathExtension.lowercased()
        return knownExtensions.contains(lowered) ? lowered : nil
    }
}
