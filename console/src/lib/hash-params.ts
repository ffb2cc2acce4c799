/** A page's own state in its address, after the route's `?` (`#/sessions?page=5&q=pikachu`). */
export const hashParams = (): URLSearchParams => new URLSearchParams(location.hash.split('?')[1] ?? '');
