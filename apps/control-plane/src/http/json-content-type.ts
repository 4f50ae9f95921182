// Exactly this string: the npm proxmox-api client compares it literally.
export const JSON_CONTENT_TYPE = 'application/json;charset=UTF-8';
