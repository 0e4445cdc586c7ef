import { isGone, type ApiError } from '../errors/api-error.js';
import type { ObjectList } from '../types/meta.js';
import type { ListOptions } from './options.js';

/** Fetches one page of a list: what `ResourceClient.list` (or an informer's source) does. */
export type ListPageFunction<T> = (options: ListOptions) => Promise<ObjectList<T>>;

/** Page size of {@link listComplete} when `limit` is not given. */
export const DEFAULT_LIST_PAGE_SIZE = 500;

/** Options of `listComplete`: those of `list` without `continue` (the pager owns the tokens). */
export interface ListCompleteOptions extends Omit<ListOptions, 'continue'> {
  /**
   * Called when a continued page failed with 410 Gone, just before the one list without `limit`
   * that replaces the pages fetched so far (for logs and metrics).
   */
  onContinueExpired?(error: ApiError): void;
  /**
   * Most pages read before the list is given up as broken (a server whose continue tokens never
   * end would otherwise keep a cache from ever syncing). Default 10,000 (5 million objects at
   * the default page size).
   */
  maxPages?: number;
}

/** A paged list that does not end: the same continue token twice, or more pages than allowed. */
export class UnendingListError extends Error {
  constructor(reason: string) {
    super(`the list does not end: ${reason}`);
    this.name = 'UnendingListError';
  }
}

/**
 * Lists every matching object as one `ObjectList`, in pages of `limit` (default 500) so the
 * apiserver never builds one huge response.
 *
 * All pages of a paged list are read at the first page's revision. When etcd compacts past that
 * revision before the last page, the next page fails with 410 Gone ("continue parameter is too
 * old"), and starting the pages over could fail the same way forever on a big, busy set. So after
 * such a failure this does ONE list without `limit` (with the caller's `resourceVersion`, if any),
 * which the apiserver answers as a single consistent snapshot, and returns that instead. Only a
 * continued page falls back: a 410 on the first page (a `resourceVersion` that is itself too old)
 * and every other error are thrown.
 *
 * The result's `metadata.resourceVersion` is the snapshot's revision: watch from it.
 */
export async function listComplete<T>(
  listPage: ListPageFunction<T>,
  options: ListCompleteOptions = {},
): Promise<ObjectList<T>> {
  // eslint-disable-next-line @typescript-eslint/unbound-method -- a caller's callback, called as a plain function
  const { onContinueExpired, maxPages = 10_000, ...listOptions } = options;
  const limit = listOptions.limit ?? DEFAULT_LIST_PAGE_SIZE;
  const first = await listPage({ ...listOptions, limit });
  let token = first.metadata.continue || undefined;
  if (!token) return first;

  const items = [...first.items];
  const seen = new Set<string>();
  for (let pages = 1; token; pages++) {
    listOptions.signal?.throwIfAborted();
    if (seen.has(token)) throw new UnendingListError('the server sent the same continue token twice');
    if (pages >= maxPages) throw new UnendingListError(`more than ${maxPages} pages (maxPages)`);
    seen.add(token);
    let page: ObjectList<T>;
    try {
      // A continue token carries the revision; the apiserver refuses a resourceVersion next to it.
      page = await listPage({
        ...listOptions,
        resourceVersion: undefined,
        resourceVersionMatch: undefined,
        limit,
        continue: token,
      });
    } catch (err) {
      if (!isGone(err)) throw err;
      onContinueExpired?.(err);
      return listPage({ ...listOptions, limit: undefined });
    }
    items.push(...page.items);
    token = page.metadata.continue || undefined;
  }
  return {
    apiVersion: first.apiVersion,
    kind: first.kind,
    metadata: { resourceVersion: first.metadata.resourceVersion },
    items,
  };
}
