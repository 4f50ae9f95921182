import { lintRule } from './lint-rule.js';

const lint = lintRule('corral/module-boundaries');

describe('the module boundaries lint rule', () => {
  it('fails a framework import in an infrastructure library', () => {
    expect(lint('libs/pg-cluster/src/x.ts', "import { Injectable } from '@nestjs/common';\nexport const x = Injectable;\n")).toEqual([
      "a project tagged 'type:infra' must not import '@nestjs/common' (banned: '@nestjs/*')",
    ]);
  });

  it('keeps frameworks and the database out of pure domain logic', () => {
    const code =
      "import { Injectable } from '@nestjs/common';\nimport { DataSource } from 'typeorm';\nexport const x = [Injectable, DataSource];\n";
    expect(lint('libs/acl/src/x.ts', code)).toEqual([
      "a project tagged 'type:domain' must not import '@nestjs/common' (banned: '@nestjs/*')",
      "a project tagged 'type:domain' must not import 'typeorm' (banned: 'typeorm')",
    ]);
  });

  it('keeps Nest, TypeORM and pg out of the command-line client', () => {
    const code =
      "import { Injectable } from '@nestjs/common';\nimport { DataSource } from 'typeorm';\nimport pg from 'pg';\nexport const x = [Injectable, DataSource, pg];\n";
    expect(lint('apps/cli/src/x.ts', code)).toEqual([
      "a project tagged 'scope:cli' must not import '@nestjs/common' (banned: '@nestjs/*')",
      "a project tagged 'scope:cli' must not import 'typeorm' (banned: 'typeorm')",
      "a project tagged 'scope:cli' must not import 'pg' (banned: 'pg')",
    ]);
  });

  it('fails a relative import that reaches into another project', () => {
    expect(lint('libs/pg-cluster/src/x.ts', "export * from '../../testing/src/index.js';\n")).toEqual([
      "'../../testing/src/index.js' reaches into project 'testing': import a library by its package name",
    ]);
  });

  it('keeps the testing library out of production code but lets tests use it', () => {
    const code = "import { waitFor } from '@corral/testing';\nexport const w = waitFor;\n";
    expect(lint('apps/control-plane/src/x.ts', code)).toEqual([
      "a project tagged 'type:app' may only depend on libraries tagged 'type:contract', 'type:domain', 'type:infra': '@corral/testing' is tagged type:testing, scope:shared",
    ]);
    expect(lint('apps/control-plane/src/x.int-spec.ts', code)).toEqual([]);
  });

  it('accepts an allowed dependency', () => {
    expect(lint('apps/control-plane/src/x.ts', "import { PgCluster } from '@corral/pg-cluster';\nexport const c = PgCluster;\n")).toEqual(
      [],
    );
  });
});
