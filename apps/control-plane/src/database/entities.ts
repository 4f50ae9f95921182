/** Every entity, listed explicitly (no globs: they break once the app is bundled). */
export const ENTITIES: readonly (new () => object)[] = [];
