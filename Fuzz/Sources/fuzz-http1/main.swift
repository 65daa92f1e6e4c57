import FuzzDriver
@_spi(Fuzzing) import HeraldHTTP

// The checks live beside the parser (HTTP1Parser+Fuzzing.swift), which is internal to HeraldHTTP.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    HTTP1ParserFuzzing.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

runLibFuzzer(testOneInput)
