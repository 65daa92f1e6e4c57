# Herald build entry points. `make run` and `make test` install missing system packages first.
SWIFT ?= swift
CONFIG ?= debug
# Debian/Ubuntu packages the build and the tests need (macOS: brew install openssl@3 nghttp2 sqlite libpq pkg-config).
# postgresql-15: the server binaries `make test` starts a throwaway cluster with (scripts/postgres-test.sh).
# chromium, chromium-driver: the headless browser the web console's test drives through WebDriver (docs/console.md);
# fonts-wqy-zenhei: a CJK font, so its screenshots of the Chinese console show the characters.
APT_PACKAGES := libssl-dev libnghttp2-dev libsqlite3-dev libpq-dev libjemalloc-dev pkg-config zlib1g-dev python3-venv postgresql-15 chromium chromium-driver fonts-wqy-zenhei
BENCH_APT_PACKAGES := nghttp2-client nghttp2-server wrk python3-venv

.PHONY: deps build run test bench install clean fuzz-build fuzz fuzz-smoke
PREFIX ?= /usr/local
# Fuzzing (docs/security.md): seconds per target for `make fuzz`, and for the pass `make test` ends with.
FUZZ_SECONDS ?= 60
FUZZ_SMOKE_SECONDS ?= 10
# The fuzz targets are a package of their own (Fuzz/); every Swift module they use, Herald's parsers
# included, is built with libFuzzer's coverage instrumentation and AddressSanitizer. libFuzzer and the
# sanitizer runtimes ship with the Swift toolchain, so `deps` installs nothing more for them.
FUZZ_BUILD := $(SWIFT) build --package-path Fuzz -c debug -Xswiftc -sanitize=fuzzer,address

deps:
	@./scripts/install-deps.sh $(APT_PACKAGES)

build: deps
	$(SWIFT) build -c $(CONFIG)

run: deps
	$(SWIFT) build -c release --product herald
	$$($(SWIFT) build -c release --show-bin-path)/herald serve $(ARGS)

# Third-party clients (PyPI, pinned) that some tests drive against Herald: scripts/python-clients.sh.
# The storage and server tests also run on PostgreSQL: a throwaway cluster lives for the `swift test` run.
test: deps
	$(SWIFT) build --build-tests
	$(SWIFT) build --product herald
	HERALD_KALYKE_PYTHON=$$(./scripts/python-clients.sh) HERALD_JPUSH_PYTHON=$$(./scripts/python-clients.sh) HERALD_LEANCLOUD_PYTHON=$$(./scripts/python-clients.sh) ./scripts/postgres-test.sh run $(SWIFT) test --skip-build
	$(MAKE) fuzz-smoke

# SwiftPM keeps this package's list of source files in Fuzz/.build, and a file added or removed here since is
# not seen there (the fuzz build then fails on a type it cannot find). So when the list of files under Sources/
# differs from the one the last fuzz build saw, Fuzz/ is built afresh.
FUZZ_SOURCES_STAMP := Fuzz/.build/parent-sources.txt

fuzz-build: deps
	@list=$$(find Sources -type f | LC_ALL=C sort); \
	if [ -d Fuzz/.build ] && [ "$$list" != "$$(cat $(FUZZ_SOURCES_STAMP) 2>/dev/null)" ]; then \
	  echo "fuzz-build: files were added to or removed from Sources/ since the last fuzz build; building Fuzz/ afresh"; \
	  rm -rf Fuzz/.build; \
	fi
	$(FUZZ_BUILD)
	@find Sources -type f | LC_ALL=C sort > $(FUZZ_SOURCES_STAMP)

# FUZZ_MERGE=1 adds the inputs that found new coverage to Fuzz/Corpus.
fuzz: fuzz-build
	./scripts/fuzz.sh $(FUZZ_SECONDS)

fuzz-smoke: fuzz-build
	./scripts/fuzz.sh $(FUZZ_SMOKE_SECONDS)

bench: deps
	@./scripts/install-deps.sh $(BENCH_APT_PACKAGES)
	$(SWIFT) build -c release --product herald
	./bench/run.sh

install: deps
	$(SWIFT) build -c release --product herald
	install -m 0755 "$$($(SWIFT) build -c release --show-bin-path)/herald" "$(PREFIX)/bin/herald"

clean:
	rm -rf .build Fuzz/.build Fuzz/.work
