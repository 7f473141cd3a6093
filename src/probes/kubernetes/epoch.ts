/** Client dates arrive as Date objects, or as strings for MicroTime fields; both become epoch ms. */
export function toEpochMs(value: Date | string | undefined | null): number | undefined {
  if (value === undefined || value === null) return undefined;
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isNaN(ms) ? undefined : ms;
}
