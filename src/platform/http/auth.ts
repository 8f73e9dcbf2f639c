import { ServiceError } from '../errors.ts';

const TOKEN_CHALLENGE = { 'www-authenticate': 'Token' };

/** 401 with the Token challenge, for the APIs that take "Authorization: Token <token>". */
export function unauthorized(detail: string): ServiceError {
  return new ServiceError('unauthorized', detail, TOKEN_CHALLENGE);
}

/** Splits "Scheme credentials"; undefined when the header is not of that form. */
export function parseAuthorization(
  header: string | undefined,
): { scheme: string; credentials: string } | undefined {
  if (header === undefined) return undefined;
  const match = /^([A-Za-z]+) +(\S+)\s*$/.exec(header);
  if (!match) return undefined;
  return { scheme: match[1]!, credentials: match[2]! };
}
