/** How long the agent may take to make, copy, template or destroy a guest's volumes. */
export const CREATE_MS = 30 * 60_000;
/** How long the agent may take for a power action. */
export const POWER_MS = 5 * 60_000;
