/**
 * The two encodings the tag is served in, with the exact settings the build measures and the server
 * sends (server/tag/assets.ts): gzip at zlib level 9 (what the size budgets are in) and Brotli at
 * quality 11 in text mode, which every current browser accepts over HTTPS (`Accept-Encoding: …, br`).
 */
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

export const gzipBytes = (body: string | Buffer): Buffer => gzipSync(body, { level: 9 });

export const brotliBytes = (body: string | Buffer): Buffer =>
  brotliCompressSync(body, {
    params: {
      [constants.BROTLI_PARAM_QUALITY]: constants.BROTLI_MAX_QUALITY,
      [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT,
      [constants.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(body),
    },
  });
