//! The Thrift2 gateway backend under [`Client`](crate::Client): its
//! connections ([`transport`]), their pool ([`pool`]), and replies read
//! without trusting the sizes in them ([`bounded`]). The calls themselves
//! are the face's (`Client`'s modules), each sent here or to the native
//! backend; the bindings are [`thrift`](crate::thrift).

pub(crate) mod bounded;
pub(crate) mod pool;
pub(crate) mod transport;
