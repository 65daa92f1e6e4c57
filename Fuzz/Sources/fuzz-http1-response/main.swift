import FuzzDriver
@_spi(Fuzzing) import HeraldHTTP

// The checks live beside the reader (HTTP1ResponseReader+Fuzzing.swift), which is internal to HeraldHTTP.
@_cdecl("LLVMFuzzerTestOneInput")
func testOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    HTTP1ResponseReaderFuzzing.run(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

runLibFuzzer(testOneInput)
