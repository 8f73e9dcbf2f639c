import type { TSchema } from 'typebox';
import { Type } from 'typebox';
import { ErrorResponse, FieldErrorsResponse } from '../platform/http/schemas.ts';

export function operatorErrors(): Record<number, TSchema> {
  return { 400: Type.Union([FieldErrorsResponse, ErrorResponse]), 401: ErrorResponse, 404: ErrorResponse };
}
