import { useState, type FormEvent } from 'react';
import { useQuery } from '@tanstack/react-query';
import { ActionGroup, Alert, Button, Form, LoginPage as PfLoginPage } from '@patternfly/react-core';
import { ApiFailure, call } from '../api/client';
import { login, type Session } from '../api/session';
import { SelectField, TextField } from '../components/form-field';

interface Realm {
  readonly realm: string;
  readonly comment?: string;
  readonly default?: number;
}

/** User, password and realm (`GET /access/domains` lists them, as PVE's login does); the API's message when it refuses. */
export function LoginPage({ onLogin }: { readonly onLogin: (session: Session) => void }) {
  const realms = useQuery({ queryKey: ['access', 'domains'], queryFn: () => call<Realm[]>('GET', '/access/domains') });
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [realm, setRealm] = useState<string | null>(null);
  const [failure, setFailure] = useState<ApiFailure | Error | null>(null);
  const [busy, setBusy] = useState(false);
  const chosenRealm = realm ?? realms.data?.find((r) => r.default === 1)?.realm ?? 'pam';

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setFailure(null);
    try {
      onLogin(await login(username, password, chosenRealm));
    } catch (error) {
      setFailure(error instanceof Error ? error : new Error(String(error)));
    } finally {
      setBusy(false);
    }
  };
  const paramError = (name: string) => (failure instanceof ApiFailure ? failure.forParam(name) : undefined);

  return (
    <PfLoginPage
      loginTitle="Log in to Corral"
      loginSubtitle="The cluster's API, as a console"
      brandImgSrc="/favicon.svg"
      brandImgAlt="Corral"
    >
      <Form onSubmit={(event) => void submit(event)} aria-label="Log in">
        {failure && (
          <Alert variant="danger" isInline title="Login failed" data-testid="login-error">
            {failure.message}
          </Alert>
        )}
        <TextField
          isRequired
          id="username"
          label="User name"
          autoComplete="username"
          value={username}
          onChange={setUsername}
          error={paramError('username')}
        />
        <TextField
          isRequired
          id="password"
          label="Password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={setPassword}
          error={paramError('password')}
        />
        <SelectField
          id="realm"
          label="Realm"
          value={chosenRealm}
          onChange={setRealm}
          options={(realms.data ?? [{ realm: 'pam', comment: 'Linux PAM standard authentication' }]).map((r) => ({
            value: r.realm,
            label: r.comment ? `${r.comment} (${r.realm})` : r.realm,
          }))}
        />
        <ActionGroup>
          <Button type="submit" variant="primary" isBlock isLoading={busy} isDisabled={busy || !username || !password}>
            Log in
          </Button>
        </ActionGroup>
      </Form>
    </PfLoginPage>
  );
}
