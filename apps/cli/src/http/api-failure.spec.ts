import { ApiFailure } from './api-failure.js';

describe('an API error as the command reports it', () => {
  it("takes every message of the envelope, adding the parameter where the message doesn't name it", () => {
    const body = JSON.stringify({
      data: null,
      errors: [
        { code: 400, param: 'expire', message: "parameter 'expire': must be an integer" },
        { code: 400, param: 'tokens', message: 'At least one of users, groups or tokens is needed' },
      ],
    });
    expect(ApiFailure.fromResponse(400, 'Parameter verification failed.', body).messages).toEqual([
      "parameter 'expire': must be an integer",
      'tokens: At least one of users, groups or tokens is needed',
    ]);
  });

  it('shows the reason phrase where it says why after the message (Corral keeps 401 and 403 messages to two words)', () => {
    const body = JSON.stringify({ data: null, errors: [{ code: 401, message: 'authentication failed' }] });
    expect(
      ApiFailure.fromResponse(401, 'authentication failed - the join token is invalid, expired or already used', body).messages,
    ).toEqual(['authentication failed - the join token is invalid, expired or already used']);
    expect(ApiFailure.fromResponse(401, 'authentication failure', body).messages).toEqual(['authentication failed']);
  });

  it('falls back to the reason phrase when the body has no envelope', () => {
    expect(ApiFailure.fromResponse(401, 'No ticket', '')).toEqual(expect.objectContaining({ status: 401, messages: ['No ticket'] }));
    expect(ApiFailure.fromResponse(502, 'Bad Gateway', '<html>').messages).toEqual(['Bad Gateway']);
    expect(ApiFailure.fromResponse(500, '', '{"data":null}').messages).toEqual(['no reason given']);
  });
});
