/**
 * XXH32 and XXH64 (xxhash-wasm, https://github.com/jungomi/xxhash-wasm): fast non-cryptographic
 * hashes of bytes, for the ETag of a body (server/http/httpCache.ts) and for finding a request's bytes
 * among those remembered (server/http/graphql/responseCache.ts), and of text: the documents the operation cache
 * has seen once (server/execution/engine.ts). One WebAssembly instance serves them all; it is
 * compiled once, when the module loads (the instantiation is asynchronous).
 */

import xxhash from 'xxhash-wasm';

export const { h32, h32Raw, h64Raw } = await xxhash();
