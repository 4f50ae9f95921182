/** The path of a request URL without its query string, which may carry a token: what logs and messages show. */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
