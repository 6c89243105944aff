/**
 * The media types of GraphQL over HTTP as graphql-http negotiates them
 * (https://graphql.github.io/graphql-over-http/draft/#sec-Media-Types).
 */

/** A media type a GraphQL answer is sent as. */
export type MediaType = 'application/graphql-response+json' | 'application/json';

/** The Content-Type of an answer of each media type. */
export const CONTENT_TYPES: Readonly<Record<MediaType, string>> = {
  'application/graphql-response+json': 'application/graphql-response+json; charset=utf-8',
  'application/json': 'application/json; charset=utf-8',
};

/**
 * The media type graphql-http answers an `Accept` header with, or null for its 406. A copy of
 * its createHandler's loop: graphql-http exports no function for it, and the fast path needs it.
 */
export function acceptedMediaType(accept: string | undefined): MediaType | null {
  for (const item of (accept || '*/*').replace(/\s/g, '').toLowerCase().split(',')) {
    const [mediaType, ...params] = item.split(';');
    const charset = params.find((param) => param.includes('charset=')) || 'charset=utf-8';
    if (mediaType === 'application/graphql-response+json' && charset === 'charset=utf-8') return 'application/graphql-response+json';
    if ((mediaType === 'application/json' || mediaType === 'application/*' || mediaType === '*/*') && (charset === 'charset=utf-8' || charset === 'charset=utf8')) {
      return 'application/json';
    }
  }
  return null;
}

/**
 * Whether a POST's Content-Type is the one graphql-http reads (application/json, in UTF-8 when a
 * charset is given). A copy of its parseRequestParams's test: it exports none, and the body is
 * read (with its size limit) before graphql-http sees the request.
 */
export function isJsonContentType(header: string | undefined): boolean {
  const [mediaType, charset = 'charset=utf-8'] = (header ?? '').replace(/\s/g, '').toLowerCase().split(';');
  return mediaType === 'application/json' && charset === 'charset=utf-8';
}

/** Most distinct header values remembered per memoized function; clients send a handful. */
const MEMO_SIZE = 64;

/** Remembers a function of one header value; forgets everything once it has seen too many values. */
export function memoize<T>(fn: (header: string | undefined) => T): (header: string | undefined) => T {
  const known = new Map<string | undefined, T>();
  return (header) => {
    let value = known.get(header);
    if (value === undefined && !known.has(header)) {
      if (known.size >= MEMO_SIZE) known.clear();
      known.set(header, (value = fn(header)));
    }
    return value as T;
  };
}
