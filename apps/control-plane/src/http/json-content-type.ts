// Exactly this string: the npm proxmox-api client compares it literally (facts.md 0).
export const JSON_CONTENT_TYPE = 'application/json;charset=UTF-8';
