import APNSCore
import FuzzDriver

/// The binary-protocol decoders (simulator's legacy gateway; feedback client). For notifications:
/// feeding the bytes whole or in pieces gives the same notifications and the same error; commands
/// 0 and 1 re-encode to exactly the bytes they were read from; a frame re-encodes to one that
/// decodes to an equal notification (items may come in another order, unknown items are dropped).
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    let whole = decodeNotifications(input, pieceSizes: [size])
    // Pieces of 1 to 7 bytes, sized by the input's own bytes so a crash file replays the same split.
    var split: [Int] = []
    var total = 0
    while total < size {
        split.append(Int(input[total] ^ UInt8(truncatingIfNeeded: split.count)) % 7 + 1)
        total += split.last!
    }
    let pieces = decodeNotifications(input, pieceSizes: split)
    precondition(whole == pieces, "one piece gave \(whole), pieces gave \(pieces)")
    checkFeedback(input)
    return 0
}

private struct Outcome: Equatable, CustomStringConvertible {
    var notifications: [LegacyNotification] = []
    var error: LegacyDecodingError?
    var description: String { "\(notifications) then \(error.map(String.init(describing:)) ?? "no error")" }
}

private func decodeNotifications(_ input: UnsafeBufferPointer<UInt8>, pieceSizes: [Int]) -> Outcome {
    var decoder = LegacyNotificationDecoder()
    var outcome = Outcome()
    var fed = 0
    var consumed = 0
    for size in pieceSizes {
        let end = min(fed + size, input.count)
        decoder.append(UnsafeBufferPointer(rebasing: input[fed..<end]))
        fed = end
        while true {
            let buffered = decoder.bufferedByteCount
            precondition(consumed + buffered == fed, "fed \(fed) bytes, consumed \(consumed), \(buffered) buffered")
            let notification: LegacyNotification?
            do {
                notification = try decoder.next()
            } catch {
                precondition((try? decoder.next()) == nil, "a decoder that failed decoded again")
                outcome.error = error
                return outcome
            }
            guard let notification else { break }
            let read = Array(input[consumed..<consumed + buffered - decoder.bufferedByteCount])
            consumed += read.count
            checkReencoding(notification, read: read)
            outcome.notifications.append(notification)
        }
    }
    return outcome
}

private func checkReencoding(_ notification: LegacyNotification, read: [UInt8]) {
    let encoded: [UInt8]
    do {
        encoded = try notification.encoded()
    } catch {
        preconditionFailure("decoded \(notification) from \(read) but cannot encode it: \(error)")
    }
    if notification.format != .frame {
        precondition(encoded == read, "decoded \(notification) from \(read) but it encodes as \(encoded)")
        return
    }
    var decoder = LegacyNotificationDecoder()
    decoder.append(encoded)
    let again = try? decoder.next()
    precondition(again == notification && decoder.bufferedByteCount == 0,
                 "\(notification) encodes as \(encoded), which decodes to \(String(describing: again))")
}

/// The same bytes read as a feedback stream: every tuple re-encodes to the bytes it came from.
private func checkFeedback(_ input: UnsafeBufferPointer<UInt8>) {
    var decoder = LegacyFeedbackDecoder()
    decoder.append(input)
    var consumed = 0
    while let tuple = try? decoder.next() {
        let read = Array(input[consumed..<input.count - decoder.bufferedByteCount])
        consumed += read.count
        precondition((try? tuple.encoded()) == read, "feedback tuple \(tuple) read from \(read) encodes differently")
    }
}

runLibFuzzer(testOneInput)
