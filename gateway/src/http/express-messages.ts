import { IncomingMessage, ServerResponse } from 'node:http';
import type { Express } from 'express';

export interface MessageClasses {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
}

/**
 * The HTTP server's request and response classes for `app`, whose objects are born with the
 * app's prototypes (app.request, app.response). Express gives every request those prototypes
 * with Object.setPrototypeOf, which on an object Node already built changes its hidden class: V8
 * then treats the request and response as objects of a new shape and every access to them
 * afterwards, Node's own included, goes slower. With these classes the prototype is already the
 * one Express sets, and its setPrototypeOf changes nothing.
 */
export function messageClassesOf(app: Express): MessageClasses {
  class AppRequest extends IncomingMessage {}
  class AppResponse extends ServerResponse {}
  adopt(AppRequest.prototype, app.request, app);
  adopt(AppResponse.prototype, app.response, app);
  app.request = AppRequest.prototype as unknown as Express['request'];
  app.response = AppResponse.prototype as unknown as Express['response'];
  return { IncomingMessage: AppRequest, ServerResponse: AppResponse as unknown as typeof ServerResponse };
}

/** `target` takes `current`'s place: its prototype (Express's request or response) and its own properties (`app`). */
function adopt(target: object, current: object, app: Express): void {
  Object.setPrototypeOf(target, Object.getPrototypeOf(current));
  for (const name of Reflect.ownKeys(current)) {
    const descriptor = Object.getOwnPropertyDescriptor(current, name);
    if (descriptor) Object.defineProperty(target, name, descriptor);
  }
  if (!Object.prototype.hasOwnProperty.call(target, 'app')) Object.defineProperty(target, 'app', { configurable: true, enumerable: true, writable: true, value: app });
}
