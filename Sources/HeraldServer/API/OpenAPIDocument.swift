enum OpenAPIDocument { static let text = "{}" }
