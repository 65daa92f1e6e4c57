// SwiftPM needs a source file to build a C target; the header is all this target is for.
