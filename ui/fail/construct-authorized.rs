// User code cannot make an Authorized<R>: only resolve-then-authorize can.
use toolgate::Authorized;

struct Order;

fn main() {
    let _forged = Authorized { resource: Order };
}
