import { ApiError } from '../errors/api-error.js';
import { errorAnswer } from './error-body.js';

const paramError = ApiError.invalidParams([
  { param: 'cores', message: 'must be an integer from 1 to 1024' },
  { param: 'keyboard', message: 'must be one of de, en-us, ...' },
]);
const notFound = new ApiError('NOT_FOUND', 'VM 100 does not exist');

describe('errorAnswer', () => {
  it("keeps Corral's errors array by default, each item with its status and parameter", () => {
    expect(errorAnswer('spec', paramError, 400)).toEqual({
      reason: 'must be an integer from 1 to 1024',
      body: {
        data: null,
        errors: [
          { code: 400, param: 'cores', message: 'must be an integer from 1 to 1024' },
          { code: 400, param: 'keyboard', message: 'must be one of de, en-us, ...' },
        ],
      },
    });
    expect(errorAnswer('spec', notFound, 404)).toEqual({
      reason: 'VM 100 does not exist',
      body: { data: null, errors: [{ code: 404, message: 'VM 100 does not exist' }] },
    });
  });

  it("answers parameter errors as PVE's object keyed by parameter, with PVE's reason phrase", () => {
    expect(errorAnswer('pve', paramError, 400)).toEqual({
      reason: 'Parameter verification failed.',
      body: {
        data: null,
        errors: { cores: 'must be an integer from 1 to 1024', keyboard: 'must be one of de, en-us, ...' },
        message: 'Parameter verification failed.\n',
      },
    });
  });

  it('answers other errors without an errors member, the message in the reason phrase and in message', () => {
    const answer = errorAnswer('pve', notFound, 404);
    expect(answer).toEqual({ reason: 'VM 100 does not exist', body: { data: null, message: 'VM 100 does not exist\n' } });
    expect(answer.body).not.toHaveProperty('errors');
  });

  it('puts a longer reason, when the error has one, in the reason phrase and the message', () => {
    const error = new ApiError('AUTHENTICATION_FAILED', 'authentication failed', { reason: 'authentication failed - invalid PVE ticket' });
    expect(errorAnswer('pve', error, 401)).toEqual({
      reason: 'authentication failed - invalid PVE ticket',
      body: { data: null, message: 'authentication failed - invalid PVE ticket\n' },
    });
  });
});
