/**
 * The reviewed part of what Node offers simulated code: every global and builtin-module function
 * that the escape guard does not wrap, with the reason it cannot leak time, randomness, the
 * locale or the machine into a seed. machine-surface.test.ts fails on anything not wrapped and
 * not listed here, so a new Node major cannot add a hole unnoticed. Compiled from Node 20.20,
 * 22.23 and 24.21 (with --harmony-temporal).
 */
export interface Reviewed {
  /** `globalThis`, `globalThis.<namespace>`, or a builtin module (`node:fs`). */
  readonly where: string;
  /** Space-separated member names. */
  readonly names: string;
  readonly reason: string;
}

export const REVIEWED: readonly Reviewed[] = [
  {
    where: "globalThis",
    names:
      "AbortController AbortSignal AggregateError Array ArrayBuffer AsyncDisposableStack BigInt BigInt64Array BigUint64Array Blob Boolean Buffer ByteLengthQueuingStrategy CloseEvent CompressionStream CountQueuingStrategy Crypto CryptoKey CustomEvent DOMException DataView DecompressionStream DisposableStack Error EvalError Event EventTarget File FinalizationRegistry Float16Array Float32Array Float64Array FormData Function Headers Int16Array Int32Array Int8Array Iterator Map MessageEvent MessagePort Navigator Number Object Performance PerformanceEntry PerformanceMark PerformanceMeasure PerformanceObserverEntryList PerformanceResourceTiming Promise Proxy RangeError ReadableByteStreamController ReadableStream ReadableStreamBYOBReader ReadableStreamBYOBRequest ReadableStreamDefaultController ReadableStreamDefaultReader ReferenceError RegExp Request Response Set SharedArrayBuffer String SubtleCrypto SuppressedError Symbol SyntaxError TextDecoder TextDecoderStream TextEncoder TextEncoderStream TransformStream TransformStreamDefaultController TypeError URIError URL URLPattern URLSearchParams Uint16Array Uint32Array Uint8Array Uint8ClampedArray WeakMap WeakRef WeakSet WritableStream WritableStreamDefaultController WritableStreamDefaultWriter atob btoa crypto decodeURI decodeURIComponent encodeURI encodeURIComponent escape eval isFinite isNaN navigator parseFloat parseInt performance process queueMicrotask structuredClone unescape",
    reason:
      "constructors, codecs and pure functions of the language and the web platform; the clock-, random- and I/O-reading globals are wrapped (escape-guard.ts)",
  },
  {
    where: "globalThis.Array.prototype",
    names:
      "at concat constructor copyWithin entries every fill filter find findIndex findLast findLastIndex flat flatMap forEach includes indexOf join keys lastIndexOf map pop push reduce reduceRight reverse shift slice some sort splice toLocaleString toReversed toSorted toSpliced toString unshift values with",
    reason: "computes on the array (toLocaleString calls each element's, which is fixed)",
  },
  {
    where: "globalThis.Atomics",
    names: "add and compareExchange exchange isLockFree load notify or pause store sub xor",
    reason: "operations on shared memory of this thread",
  },
  {
    where: "globalThis.Atomics",
    names: "wait",
    reason:
      "blocks the real thread; a seed runs on one thread, so nothing can notify it and the result is fixed by its arguments",
  },
  {
    where: "globalThis.BigInt.prototype",
    names: "constructor toString valueOf",
    reason: "computes on the value",
  },
  {
    where: "globalThis.Date.prototype",
    names:
      "constructor getTime getUTCDate getUTCDay getUTCFullYear getUTCHours getUTCMilliseconds getUTCMinutes getUTCMonth getUTCSeconds setTime setUTCDate setUTCFullYear setUTCHours setUTCMilliseconds setUTCMinutes setUTCMonth setUTCSeconds toGMTString toISOString toJSON toTemporalInstant toUTCString valueOf",
    reason: "UTC accessors and formatters: independent of the machine's zone and locale",
  },
  {
    where: "globalThis.Intl",
    names: "Locale getCanonicalLocales supportedValuesOf",
    reason: "take explicit locale tags or list ICU's data (fixed per Node binary)",
  },
  {
    where: "globalThis.JSON",
    names: "isRawJSON parse rawJSON stringify",
    reason: "pure: computes on its arguments only",
  },
  {
    where: "globalThis.Math",
    names:
      "abs acos acosh asin asinh atan atan2 atanh cbrt ceil clz32 cos cosh exp expm1 f16round floor fround hypot imul log log10 log1p log2 max min pow round sign sin sinh sqrt tan tanh trunc",
    reason: "pure: computes on its arguments (Math.random is virtual)",
  },
  {
    where: "globalThis.Number.prototype",
    names: "constructor toExponential toFixed toPrecision toString valueOf",
    reason: "computes on the value",
  },
  {
    where: "globalThis.Reflect",
    names:
      "apply construct defineProperty deleteProperty get getOwnPropertyDescriptor getPrototypeOf has isExtensible ownKeys preventExtensions set setPrototypeOf",
    reason: "pure: computes on its arguments only",
  },
  {
    where: "globalThis.String.prototype",
    names:
      "anchor at big blink bold charAt charCodeAt codePointAt concat constructor endsWith fixed fontcolor fontsize includes indexOf isWellFormed italics lastIndexOf link match matchAll normalize padEnd padStart repeat replace replaceAll search slice small split startsWith strike sub substr substring sup toLowerCase toString toUpperCase toWellFormed trim trimEnd trimLeft trimRight trimStart valueOf",
    reason: "computes on the string (locale-independent case mapping and normalisation)",
  },
  {
    where: "globalThis.Temporal",
    names:
      "Calendar Duration Instant PlainDate PlainDateTime PlainMonthDay PlainTime PlainYearMonth TimeZone ZonedDateTime",
    reason: "Temporal classes given explicit values and zones (Temporal.Now is guarded; toLocaleString is fixed)",
  },
  {
    where: "globalThis.WebAssembly",
    names:
      "CompileError Exception Global Instance LinkError Memory Module RuntimeError SuspendError Suspending Table Tag promising validate",
    reason: "synchronous compilation and instantiation in this thread (the asynchronous forms are guarded)",
  },
  {
    where: "globalThis.console",
    names:
      "Console _stderr _stderrErrorHandler _stdout _stdoutErrorHandler assert clear context count countReset createTask debug dir dirxml error group groupCollapsed groupEnd info log profile profileEnd table timeStamp trace warn",
    reason: "output, captured into the trace during a seed (console.time and friends are guarded)",
  },
  {
    where: "globalThis.process",
    names:
      "_debugEnd _debugProcess _exiting _fatalException _rawDebug _startProfilerIdleNotifier _stopProfilerIdleNotifier _tickCallback allowedNodeEnvironmentFlags assert emitWarning finalization getBuiltinModule hasUncaughtExceptionCaptureCallback nextTick ref report setSourceMapsEnabled setUncaughtExceptionCaptureCallback sourceMapsEnabled stderr stdin stdout unref",
    reason:
      "the runtime's plumbing (ticks, warnings, its standard streams for output); reading the machine through process is wrapped",
  },
  {
    where: "globalThis.process",
    names: "_linkedBinding binding",
    reason: "Node's internal bindings: raw native access that no library running here uses (deprecated)",
  },
  {
    where: "node:process",
    names: "_linkedBinding binding",
    reason: "Node's internal bindings: raw native access that no library running here uses (deprecated)",
  },
  {
    where: "globalThis.process",
    names: "abort exit exitCode reallyExit",
    reason:
      "ends or marks the real process, returns no value from the machine (a simulated process's exit is the runner's concern)",
  },
  {
    where: "node:process",
    names: "abort exit reallyExit",
    reason:
      "ends or marks the real process, returns no value from the machine (a simulated process's exit is the runner's concern)",
  },
  {
    where: "globalThis.process",
    names: "cwd",
    reason:
      "the directory the run started in: the same for a run and its replay command; `path.resolve` of a relative path reads it, so guarding it would stop ordinary path handling",
  },
  {
    where: "node:process",
    names: "cwd",
    reason:
      "the directory the run started in: the same for a run and its replay command; `path.resolve` of a relative path reads it, so guarding it would stop ordinary path handling",
  },
  {
    where: "globalThis.process.report",
    names:
      "compact directory excludeEnv excludeNetwork filename reportOnFatalError reportOnSignal reportOnUncaughtException signal",
    reason: "report settings (the report itself is guarded)",
  },
  {
    where: "node:assert",
    names:
      "Assert AssertionError CallTracker deepEqual deepStrictEqual doesNotMatch doesNotReject doesNotThrow equal fail ifError match notDeepEqual notDeepStrictEqual notEqual notStrictEqual ok partialDeepStrictEqual rejects strict strictEqual throws",
    reason: "pure: computes on its arguments only",
  },
  {
    where: "node:assert/strict",
    names:
      "Assert AssertionError CallTracker deepEqual deepStrictEqual doesNotMatch doesNotReject doesNotThrow equal fail ifError match notDeepEqual notDeepStrictEqual notEqual notStrictEqual ok partialDeepStrictEqual rejects strict strictEqual throws",
    reason: "pure: computes on its arguments only",
  },
  {
    where: "node:async_hooks",
    names: "AsyncLocalStorage AsyncResource",
    reason: "AsyncLocalStorage and AsyncResource carry context; they read nothing from the machine",
  },
  {
    where: "node:async_hooks",
    names: "createHook executionAsyncId executionAsyncResource triggerAsyncId",
    reason:
      "counters of this thread's async resources: code that stores them breaks replay, but only async_hooks-based tools read them and the runner's own hook keys on them",
  },
  {
    where: "node:buffer",
    names: "Blob Buffer File SlowBuffer atob btoa isAscii isUtf8 resolveObjectURL transcode",
    reason: "pure: computes on its arguments only",
  },
  {
    where: "node:child_process",
    names: "_forkChild",
    reason: "internal helper (every way to start a process is guarded)",
  },
  {
    where: "node:cluster",
    names: "Worker disconnect setupMaster setupPrimary",
    reason: "worker bookkeeping (cluster.fork is guarded)",
  },
  {
    where: "node:console",
    names:
      "Console assert clear context count countReset createTask debug dir dirxml error group groupCollapsed groupEnd info log profile profileEnd table timeStamp trace warn",
    reason: "output, captured into the trace during a seed (console.time and friends are guarded)",
  },
  {
    where: "node:crypto",
    names:
      "Certificate Cipher Cipheriv Decipher Decipheriv Hash Hmac KeyObject Verify X509Certificate argon2Sync checkPrimeSync createCipheriv createDecipheriv createHash createHmac createPrivateKey createPublicKey createSecretKey createVerify decapsulate diffieHellman getCipherInfo getCiphers getCurves getFips getHashes hash hkdfSync pbkdf2Sync privateDecrypt publicDecrypt scryptSync setEngine setFips timingSafeEqual",
    reason:
      "deterministic given their inputs: hashes, ciphers, key objects, synchronous derivations (random and generated values are virtual or guarded)",
  },
  {
    where: "node:crypto",
    names: "DiffieHellman DiffieHellmanGroup ECDH createDiffieHellmanGroup createECDH getDiffieHellman",
    reason:
      "constructs key-agreement objects; generating keys on them (generateKeys) is guarded, setPrivateKey with seeded bytes is the replayable way",
  },
  {
    where: "node:crypto",
    names: "Sign createSign",
    reason:
      "deterministic for Ed25519, Ed448 and RSA PKCS#1 v1.5 keys; ECDSA, DSA and RSA-PSS signatures draw nonces from OpenSSL (documented in docs/node-runtime.md as not covered)",
  },
  {
    where: "node:crypto",
    names: "getRandomValues",
    reason:
      "a getter for a function that calls webcrypto's getRandomValues, which is virtual (escape-probes.test.ts shows it)",
  },
  {
    where: "node:crypto",
    names: "privateEncrypt",
    reason: "computes on its arguments only (PKCS#1 type 1 padding is deterministic)",
  },
  {
    where: "node:dgram",
    names: "_createSocketHandle",
    reason: "internal helper (createSocket and the Socket class are guarded)",
  },
  {
    where: "node:diagnostics_channel",
    names: "Channel channel hasSubscribers subscribe tracingChannel unsubscribe",
    reason: "in-process publish/subscribe",
  },
  {
    where: "node:dns",
    names: "Resolver getDefaultResultOrder setDefaultResultOrder",
    reason: "the Resolver class (its queries are guarded) and the result-order setting",
  },
  {
    where: "node:dns/promises",
    names: "Resolver getDefaultResultOrder setDefaultResultOrder",
    reason: "the Resolver class (its queries are guarded) and the result-order setting",
  },
  {
    where: "node:domain",
    names: "Domain create createDomain",
    reason: "in-process error routing",
  },
  {
    where: "node:events",
    names:
      "EventEmitter EventEmitterAsyncResource addAbortListener getEventListeners getMaxListeners init listenerCount on once setMaxListeners",
    reason: "in-process events",
  },
  {
    where: "node:fs",
    names:
      "Dir Dirent FileReadStream FileWriteStream ReadStream Stats Utf8Stream WriteStream _toUnixTimestamp closeSync fstatSync readSync readvSync unwatchFile",
    reason:
      "operate on a file descriptor opened through a checked open (openSync is checked by flags and path), or are classes and helpers",
  },
  {
    where: "node:http",
    names:
      "Agent ClientRequest CloseEvent IncomingMessage MessageEvent OutgoingMessage Server ServerResponse _connectionListener setGlobalProxyFromEnv setMaxIdleHTTPParsers validateHeaderName validateHeaderValue",
    reason:
      "Node's HTTP classes and validators, which run over the simulated sockets (request, get, createServer are taken over or guarded)",
  },
  {
    where: "node:http2",
    names:
      "Http2ServerRequest Http2ServerResponse getDefaultSettings getPackedSettings getUnpackedSettings performServerHandshake",
    reason: "settings codecs and classes (connect and createServer are taken over or guarded)",
  },
  {
    where: "node:https",
    names: "Agent Server",
    reason: "classes (request, get, createServer are guarded)",
  },
  {
    where: "node:inspector",
    names: "Session close open url waitForDebugger",
    reason: "the debugger, opened by a person, not by simulated code",
  },
  {
    where: "node:inspector/promises",
    names: "Session close open url waitForDebugger",
    reason: "the debugger, opened by a person, not by simulated code",
  },
  {
    where: "node:module",
    names:
      "Module SourceMap _debug _findPath _initPaths _load _nodeModulePaths _preloadModules _resolveFilename _resolveLookupPaths createRequire enableCompileCache findPackageJSON findSourceMap flushCompileCache getCompileCacheDir getSourceMapsSupport isBuiltin register registerHooks runMain setSourceMapsSupport stripTypeScriptTypes syncBuiltinESMExports",
    reason: "module loading and its caches (loads read the checkout and node_modules)",
  },
  {
    where: "node:net",
    names:
      "BlockList BoundSocket Server Socket SocketAddress Stream _createServerHandle _normalizeArgs _setSimultaneousAccepts getDefaultAutoSelectFamily getDefaultAutoSelectFamilyAttemptTimeout isIP isIPv4 isIPv6 setDefaultAutoSelectFamily setDefaultAutoSelectFamilyAttemptTimeout",
    reason: "classes and address helpers; Socket#connect and Server#listen are taken over or guarded",
  },
  {
    where: "node:os",
    names: "arch endianness platform type",
    reason:
      "the same facts as process.platform and process.arch, on which Node's own code branches: guarding them would not remove the dependency; one report holds one platform",
  },
  {
    where: "node:path",
    names:
      "_makeLong basename dirname extname format isAbsolute join matchesGlob normalize parse relative resolve toNamespacedPath",
    reason: "pure (resolve reads process.cwd, reviewed above)",
  },
  {
    where: "node:path/posix",
    names:
      "_makeLong basename dirname extname format isAbsolute join matchesGlob normalize parse relative resolve toNamespacedPath",
    reason: "pure (resolve reads process.cwd, reviewed above)",
  },
  {
    where: "node:path/win32",
    names:
      "_makeLong basename dirname extname format isAbsolute join matchesGlob normalize parse relative resolve toNamespacedPath",
    reason: "pure (resolve reads process.cwd, reviewed above)",
  },
  {
    where: "node:perf_hooks",
    names:
      "Performance PerformanceEntry PerformanceMark PerformanceMeasure PerformanceObserverEntryList PerformanceResourceTiming createHistogram",
    reason: "entry classes and histograms (every clock and observer is virtual or guarded)",
  },
  {
    where: "node:process",
    names:
      "_debugEnd _debugProcess _fatalException _rawDebug _startProfilerIdleNotifier _stopProfilerIdleNotifier _tickCallback assert emitWarning getBuiltinModule hasUncaughtExceptionCaptureCallback nextTick ref setSourceMapsEnabled setUncaughtExceptionCaptureCallback unref",
    reason:
      "the runtime's plumbing (ticks, warnings, its standard streams for output); reading the machine through process is wrapped",
  },
  {
    where: "node:punycode",
    names: "decode encode toASCII toUnicode",
    reason: "pure: computes on its arguments only",
  },
  {
    where: "node:querystring",
    names: "decode encode escape parse stringify unescape unescapeBuffer",
    reason: "pure: computes on its arguments only",
  },
  {
    where: "node:readline",
    names: "Interface clearLine clearScreenDown createInterface cursorTo emitKeypressEvents moveCursor",
    reason: "line editing over streams the caller passes",
  },
  {
    where: "node:readline/promises",
    names: "Interface Readline createInterface",
    reason: "line editing over streams the caller passes",
  },
  {
    where: "node:repl",
    names: "REPLServer Recoverable isValidSyntax start writer",
    reason: "interactive tool, not used by simulated servers",
  },
  {
    where: "node:sea",
    names: "getAsset getAssetAsBlob getAssetKeys getRawAsset isSea",
    reason: "assets of a single-executable build, fixed by the build",
  },
  {
    where: "node:sqlite",
    names: "Session StatementSync",
    reason: "objects of a database whose opening is guarded",
  },
  {
    where: "node:stream",
    names:
      "Duplex PassThrough Readable Stream Transform Writable _isArrayBufferView _isUint8Array _uint8ArrayToBuffer addAbortSignal compose destroy duplexPair finished getDefaultHighWaterMark isDestroyed isDisturbed isErrored isReadable isWritable pipeline setDefaultHighWaterMark",
    reason: "in-process streams",
  },
  {
    where: "node:stream/consumers",
    names: "arrayBuffer blob buffer bytes json text",
    reason: "in-process streams",
  },
  {
    where: "node:stream/promises",
    names: "finished pipeline",
    reason: "in-process streams",
  },
  {
    where: "node:stream/web",
    names:
      "ByteLengthQueuingStrategy CompressionStream CountQueuingStrategy DecompressionStream ReadableByteStreamController ReadableStream ReadableStreamBYOBReader ReadableStreamBYOBRequest ReadableStreamDefaultController ReadableStreamDefaultReader ReadableStreamTee TextDecoderStream TextEncoderStream TransformStream TransformStreamDefaultController WritableStream WritableStreamDefaultController WritableStreamDefaultWriter",
    reason: "in-process streams (CompressionStream compresses synchronously in this thread)",
  },
  {
    where: "node:string_decoder",
    names: "StringDecoder",
    reason: "pure: computes on its arguments only",
  },
  {
    where: "node:sys",
    names:
      "MIMEParams MIMEType TextDecoder TextEncoder _errnoException _exceptionWithHostPort _extend aborted callbackify convertProcessSignalToExitCode debug debuglog deprecate diff format formatWithOptions getCallSite getCallSites getSystemErrorMap getSystemErrorMessage getSystemErrorName inherits inspect isArray isBoolean isBuffer isDate isDeepStrictEqual isError isFunction isNull isNullOrUndefined isNumber isObject isPrimitive isRegExp isString isSymbol isUndefined parseArgs parseEnv promisify setTraceSigInt stripVTControlCharacters toUSVString transferableAbortController transferableAbortSignal",
    reason: "formatting and type checks (util.log, which stamps the real time, is guarded)",
  },
  {
    where: "node:test",
    names: "after afterEach before beforeEach describe expectFailure getTestContext it only run skip suite test todo",
    reason: "the node:test runner's API",
  },
  {
    where: "node:test/reporters",
    names: "dot junit lcov spec tap",
    reason: "the node:test runner's API",
  },
  {
    where: "node:timers",
    names: "_unrefActive active enroll unenroll",
    reason: "legacy internal helpers of the timer list (setTimeout and friends are virtual)",
  },
  {
    where: "node:tls",
    names:
      "SecureContext Server TLSSocket checkServerIdentity convertALPNProtocols createSecureContext createSecurePair getCertificateCompressionAlgorithms getCiphers setDefaultCACertificates",
    reason: "classes and helpers (connect and createServer are guarded; getCACertificates is guarded)",
  },
  {
    where: "node:trace_events",
    names: "createTracing getEnabledCategories",
    reason: "tracing configured by a person",
  },
  {
    where: "node:tty",
    names: "ReadStream WriteStream isatty",
    reason: "terminal classes; isatty of an fd the caller passes",
  },
  {
    where: "node:url",
    names:
      "URL URLPattern URLSearchParams Url domainToASCII domainToUnicode fileURLToPath fileURLToPathBuffer format parse pathToFileURL resolve resolveObject urlToHttpOptions",
    reason: "pure: computes on its arguments only",
  },
  {
    where: "node:util",
    names:
      "MIMEParams MIMEType TextDecoder TextEncoder _errnoException _exceptionWithHostPort _extend aborted callbackify convertProcessSignalToExitCode debug debuglog deprecate diff format formatWithOptions getCallSite getCallSites getSystemErrorMap getSystemErrorMessage getSystemErrorName inherits inspect isArray isBoolean isBuffer isDate isDeepStrictEqual isError isFunction isNull isNullOrUndefined isNumber isObject isPrimitive isRegExp isString isSymbol isUndefined parseArgs parseEnv promisify setTraceSigInt stripVTControlCharacters toUSVString transferableAbortController transferableAbortSignal",
    reason: "formatting and type checks (util.log, which stamps the real time, is guarded)",
  },
  {
    where: "node:util/types",
    names:
      "isAnyArrayBuffer isArgumentsObject isArrayBuffer isArrayBufferView isAsyncFunction isBigInt64Array isBigIntObject isBigUint64Array isBooleanObject isBoxedPrimitive isCryptoKey isDataView isDate isExternal isFloat16Array isFloat32Array isFloat64Array isGeneratorFunction isGeneratorObject isInt16Array isInt32Array isInt8Array isKeyObject isMap isMapIterator isModuleNamespaceObject isNativeError isNumberObject isPromise isProxy isRegExp isSet isSetIterator isSharedArrayBuffer isStringObject isSymbolObject isTypedArray isUint16Array isUint32Array isUint8Array isUint8ClampedArray isWeakMap isWeakSet",
    reason: "pure: computes on its arguments only",
  },
  {
    where: "node:v8",
    names:
      "DefaultDeserializer DefaultSerializer Deserializer Serializer cachedDataVersionTag deserialize isStringOneByteRepresentation serialize setFlagsFromString setHeapSnapshotNearHeapLimit",
    reason: "serialisation and V8 settings (heap statistics and profiles are guarded)",
  },
  {
    where: "node:vm",
    names: "Script compileFunction createScript isContext runInThisContext",
    reason: "code in this realm (new contexts are guarded)",
  },
  {
    where: "node:wasi",
    names: "WASI",
    reason: "a WASI instance given explicit preopens",
  },
  {
    where: "node:worker_threads",
    names:
      "MessagePort getEnvironmentData isMarkedAsUntransferable markAsUncloneable markAsUntransferable moveMessagePortToContext receiveMessageOnPort setEnvironmentData",
    reason:
      "port helpers and this thread's environment data (MessageChannel, Worker and postMessageToThread are guarded)",
  },
  {
    where: "node:zlib",
    names:
      "BrotliCompress BrotliDecompress Deflate DeflateRaw Gunzip Gzip Inflate InflateRaw Unzip ZstdCompress ZstdDecompress createBrotliCompress createBrotliDecompress createDeflate createDeflateRaw createGunzip createGzip createInflate createInflateRaw createUnzip createZstdCompress createZstdDecompress",
    reason:
      "zlib stream classes compress on libuv's thread pool: their data arrives between steps, outside simulated time (documented in docs/node-runtime.md as not covered; the callback forms are guarded)",
  },
  {
    where: "node:zlib",
    names:
      "brotliCompressSync brotliDecompressSync crc32 deflateRawSync deflateSync gunzipSync gzipSync inflateRawSync inflateSync unzipSync zstdCompressSync zstdDecompressSync",
    reason: "synchronous (de)compression and checksums in this thread",
  },
  {
    where: "globalThis.process",
    names: "_channel send _send disconnect _disconnect emit chdir",
    reason:
      "a forked test runner's channel to its parent and its event plumbing (present only in forked test workers, which use them during seeds); Vitest's worker threads replace chdir with a stub that throws (under moonpool it is guarded)",
  },
  {
    where: "node:process",
    names: "_channel send _send disconnect _disconnect emit chdir",
    reason:
      "a forked test runner's channel to its parent and its event plumbing (present only in forked test workers, which use them during seeds); Vitest's worker threads replace chdir with a stub that throws (under moonpool it is guarded)",
  },
];
