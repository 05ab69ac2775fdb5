#include "core/halo_exchange.hpp"

#include "core/for_each.hpp"

namespace staghorn {
namespace {

int dir_index(Int3 d) { return (d.x + 1) + 3 * (d.y + 1) + 9 * (d.z + 1); }

// Buffer index of (i, j, k) inside region r, x fastest.
SH_HD inline long long packed(const Region& r, int i, int j, int k) {
  const Int3 e = r.extent();
  return (i - r.lo.x) + (long long)e.x * ((j - r.lo.y) + (long long)e.y * (k - r.lo.z));
}

struct Pack {
  View f;
  Region r;
  real* buf;
  SH_HD void operator()(int i, int j, int k) const { buf[packed(r, i, j, k)] = f(i, j, k); }
};

struct Unpack {
  View f;
  Region r;
  const real* buf;
  SH_HD void operator()(int i, int j, int k) const { f(i, j, k) = buf[packed(r, i, j, k)]; }
};

}  // namespace

Region HaloExchange::send_region(const Layout& l, Int3 d) {
  Region r;
  for (int a = 0; a < 3; ++a) {
    r.lo[a] = d[a] < 0 ? 0 : (d[a] > 0 ? l.n[a] - l.h[a] : 0);
    r.hi[a] = d[a] < 0 ? l.h[a] : l.n[a];
  }
  return r;
}

Region HaloExchange::recv_region(const Layout& l, Int3 d) {
  Region r;
  for (int a = 0; a < 3; ++a) {
    r.lo[a] = d[a] < 0 ? -l.h[a] : (d[a] > 0 ? l.n[a] : 0);
    r.hi[a] = d[a] < 0 ? 0 : (d[a] > 0 ? l.n[a] + l.h[a] : l.n[a]);
  }
  return r;
}

HaloExchange::HaloExchange(const Decomposition& dec, const Layout& layout, const Exec& ex,
                           bool corners)
    : dec_(dec), layout_(layout), ex_(ex) {
  std::vector<int> index_of(27, -1);
  for (int z = -1; z <= 1; ++z)
    for (int y = -1; y <= 1; ++y)
      for (int x = -1; x <= 1; ++x) {
        const Int3 d{x, y, z};
        const int nonzero = (x != 0) + (y != 0) + (z != 0);
        if (nonzero == 0 || (!corners && nonzero > 1)) continue;
        bool active = true;
        for (int a = 0; a < 3; ++a) active = active && (d[a] == 0 || layout.h[a] > 0);
        const int peer = dec.neighbor(d);
        if (!active || peer == MPI_PROC_NULL) continue;
        Segment s{d, peer, -1, send_region(layout, d), recv_region(layout, d), cells_per_field_};
        cells_per_field_ += static_cast<std::size_t>(s.send.size());
        index_of[dir_index(d)] = static_cast<int>(segs_.size());
        segs_.push_back(s);
      }
  // The peer across -d exists whenever the peer across d does (periodicity is per axis).
  for (auto& s : segs_) {
    s.opposite = index_of[dir_index({-s.dir.x, -s.dir.y, -s.dir.z})];
    remote_ = remote_ || s.peer != dec.comm().rank();
  }
}

Int3 HaloExchange::axes() const {
  Int3 a;
  for (const auto& s : segs_)
    for (int d = 0; d < 3; ++d) a[d] = a[d] || s.dir[d] != 0;
  return a;
}

void HaloExchange::reserve(std::size_t fields) {
  const std::size_t need = fields * cells_per_field_;
  if (send_.size() >= need) return;
  send_ = Buffer<real>(space_of(ex_.backend()), need);
  recv_ = Buffer<real>(space_of(ex_.backend()), need);
  if (ex_.on_device()) {
    host_send_ = Buffer<real>(Space::pinned, need);
    host_recv_ = Buffer<real>(Space::pinned, need);
  }
}

void HaloExchange::exchange(const std::vector<Field*>& fields) {
  if (segs_.empty() || fields.empty()) return;
  ex_.order(Lane::inner, Lane::boundary);  // what was computed must be complete before packing
  begin(fields);
  end(fields);
}

void HaloExchange::begin(const std::vector<Field*>& fields) {
  if (segs_.empty() || fields.empty()) return;
  reserve(fields.size());
  pack(fields);
  if (remote_ && ex_.on_device())
    copy_bytes(host_send_.data(), send_.data(), fields.size() * cells_per_field_ * sizeof(real),
               ex_.stream(Lane::boundary));
}

void HaloExchange::end(const std::vector<Field*>& fields) {
  if (segs_.empty() || fields.empty()) return;
  if (remote_) transfer(fields.size());
  unpack(fields);
  ex_.order(Lane::boundary, Lane::inner);
}

void HaloExchange::pack(const std::vector<Field*>& fields) {
  for (std::size_t f = 0; f < fields.size(); ++f)
    for (const auto& s : segs_)
      for_each(ex_, s.send, Lane::boundary,
               Pack{fields[f]->view(), s.send, send_.data() + f * cells_per_field_ + s.offset});
}

void HaloExchange::transfer(std::size_t nfields) {
  const int me = dec_.comm().rank();
  const std::size_t n = nfields * cells_per_field_;
  real* out = send_.data();
  real* in = recv_.data();
  if (ex_.on_device()) {
    ex_.synchronize(Lane::boundary);  // the staged send buffer is complete; the inner lane runs on
    out = host_send_.data();
    in = host_recv_.data();
  }
  std::vector<MPI_Request> reqs;
  for (const auto& s : segs_) {
    if (s.peer == me) continue;
    const auto count = static_cast<int>(s.send.size());
    for (std::size_t f = 0; f < nfields; ++f) {
      const std::size_t at = f * cells_per_field_ + s.offset;
      const int tag_in = static_cast<int>(f) * 27 + dir_index({-s.dir.x, -s.dir.y, -s.dir.z});
      const int tag_out = static_cast<int>(f) * 27 + dir_index(s.dir);
      reqs.emplace_back();
      check_mpi(
          MPI_Irecv(in + at, count, MPI_DOUBLE, s.peer, tag_in, dec_.comm().get(), &reqs.back()),
          "MPI_Irecv (halo)");
      reqs.emplace_back();
      check_mpi(
          MPI_Isend(out + at, count, MPI_DOUBLE, s.peer, tag_out, dec_.comm().get(), &reqs.back()),
          "MPI_Isend (halo)");
    }
  }
  check_mpi(MPI_Waitall(static_cast<int>(reqs.size()), reqs.data(), MPI_STATUSES_IGNORE),
            "MPI_Waitall (halo)");
  if (ex_.on_device())
    copy_bytes(recv_.data(), host_recv_.data(), n * sizeof(real), ex_.stream(Lane::boundary));
}

void HaloExchange::unpack(const std::vector<Field*>& fields) {
  const int me = dec_.comm().rank();
  for (std::size_t f = 0; f < fields.size(); ++f)
    for (const auto& s : segs_) {
      // Our halo at d holds what the peer sends toward -d; from ourselves that is segment -d.
      const real* src = s.peer == me
                            ? send_.data() + f * cells_per_field_ + segs_[s.opposite].offset
                            : recv_.data() + f * cells_per_field_ + s.offset;
      for_each(ex_, s.recv, Lane::boundary, Unpack{fields[f]->view(), s.recv, src});
    }
}

}  // namespace staghorn
