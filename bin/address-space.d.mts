/** The process's address-space cap in bytes (`/proc/self/limits`), or null where there is none or it cannot be read. */
export function addressSpaceCap(limits?: string): number | null;
