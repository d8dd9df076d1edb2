import { ChannelDemand } from './channel-demand';

describe('ChannelDemand', () => {
  it('tells the most in hand at once since the last take, then counts from what is in hand', () => {
    const demand = new ChannelDemand();
    demand.enter(500);
    demand.enter(500);
    demand.leave(500);
    expect(demand.inHand).toBe(500);
    expect(demand.take()).toBe(1000);
    expect(demand.take()).toBe(500); // still in hand
    demand.leave(500);
    expect(demand.take()).toBe(500); // it was in hand during the interval
    expect(demand.take()).toBe(0);
  });

  it('tells its watchers when the last batch in hand leaves, not before, until unsubscribed', () => {
    const demand = new ChannelDemand();
    let idle = 0;
    const unsubscribe = demand.onIdle(() => idle++);
    demand.enter(500);
    demand.enter(500);
    demand.leave(500);
    expect(idle).toBe(0);
    demand.leave(500);
    expect(idle).toBe(1);
    unsubscribe();
    demand.enter(100);
    demand.leave(100);
    expect(idle).toBe(1);
  });
});
