// Layers inside one project: the top-level folders under `root` in tiers, lowest first. A file may
// import from its own folder and from the folders of lower tiers. An import of another folder of its
// own tier, of a higher tier's folder, of a folder no tier lists, or of a file directly in `root`
// (the entry points) fails; so does every file of a folder no tier lists, so a new folder gets a
// tier. Files directly in `root` may import anything. Only relative imports are checked: package
// imports are the module-boundaries rule's.
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

const ROOT = resolve(import.meta.dirname, '../..');

/** @type {import('eslint').Rule.RuleModule} */
export const folderLayers = {
  meta: {
    type: 'problem',
    docs: { description: "Keep imports between a project's top-level folders going from higher tiers to lower ones" },
    schema: [
      {
        type: 'object',
        properties: {
          root: { type: 'string', minLength: 1 },
          tiers: { type: 'array', items: { type: 'array', items: { type: 'string', minLength: 1 }, minItems: 1 } },
        },
        required: ['root', 'tiers'],
        additionalProperties: false,
      },
    ],
  },
  create(context) {
    const { root, tiers } = context.options[0];
    const base = resolve(ROOT, root);
    // The top-level folder under root that holds `file`; '' for a file directly in root, undefined outside root.
    const folderOf = (file) => {
      const path = relative(base, file);
      if (path === '' || path.startsWith('..') || isAbsolute(path)) return undefined;
      const parts = path.split(sep);
      return parts.length > 1 ? parts[0] : '';
    };
    const tierOf = (folder) => tiers.findIndex((tier) => tier.includes(folder));
    const named = (folder) => {
      const tier = tierOf(folder);
      return tier < 0 ? `folder '${folder}' (in no tier)` : `folder '${folder}' (tier ${tier})`;
    };

    const source = folderOf(context.filename);
    if (source === undefined || source === '') return {};
    const sourceTier = tierOf(source);
    if (sourceTier < 0) {
      return {
        Program: (node) =>
          context.report({ node, message: `folder '${source}' is in no tier of ${root}: give it one in the folder-layers rule's tiers` }),
      };
    }

    function check(node, specifier) {
      if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
      const target = folderOf(resolve(dirname(context.filename), specifier));
      if (target === undefined || target === source) return;
      if (target === '') {
        context.report({ node, message: `'${specifier}': ${named(source)} must not import a file directly in ${root}, above every tier` });
        return;
      }
      const targetTier = tierOf(target);
      if (targetTier < 0 || targetTier >= sourceTier) {
        context.report({
          node,
          message: `'${specifier}': ${named(source)} must not import ${named(target)}; a folder imports only from itself and from lower tiers`,
        });
      }
    }

    const visit = (node) => check(node, node.source?.type === 'Literal' ? node.source.value : undefined);
    return { ImportDeclaration: visit, ExportNamedDeclaration: visit, ExportAllDeclaration: visit, ImportExpression: visit };
  },
};
