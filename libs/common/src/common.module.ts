import { DynamicModule, Global, Module } from '@nestjs/common';
import { Clock, SystemClock } from './clock';
import { LateRequestInputGuard, RequestInputGuard, RequestInputRules } from './request-input.guard';

const INPUT = [RequestInputRules, RequestInputGuard, LateRequestInputGuard];

@Global()
@Module({
  providers: [{ provide: Clock, useClass: SystemClock }, ...INPUT],
  exports: [Clock, ...INPUT],
})
export class CommonModule {
  /** `clock`: a replacement time source (tests pass a ManualClock to move time without sleeping). */
  static forRoot(clock?: Clock): DynamicModule {
    return {
      module: CommonModule,
      global: true,
      providers: [
        clock ? { provide: Clock, useValue: clock } : { provide: Clock, useClass: SystemClock },
        ...INPUT,
      ],
      exports: [Clock, ...INPUT],
    };
  }
}
