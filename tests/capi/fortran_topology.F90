! The topology chapter from Fortran, as a Fortran program writes it: every
! constructor, every query and the fifteen neighborhood collectives
! (blocking, non-blocking, persistent) on a Cartesian grid, a graph and a
! distributed graph, results checked. Built twice from this one source:
! with `use mpi` and, with -DDISTOPO_F08, with `use mpi_f08` (MPICH's f08
! wrappers call the PMPI_ names for constructors and queries, the MPI_ names
! for the collectives). Two results tell that distopo, not MPICH alone,
! served the program: a dist graph's neighbor lists come back sorted by
! rank, and MPI_Cart_sub dropping every dimension gives every process a
! communicator of its own (MPICH gives MPI_COMM_NULL to all but one).
! Prints "No Errors" on rank 0 when every check passed on every rank.
#ifdef DISTOPO_F08
#define HANDLE(kind) type(kind)
#else
#define HANDLE(kind) integer
#endif

module checks
#ifdef DISTOPO_F08
  use mpi_f08
#else
  use mpi
#endif
  implicit none
  integer :: failures = 0
  integer :: me = 0, nprocs = 1
contains
  subroutine check(condition, what)
    logical, intent(in) :: condition
    character(len=*), intent(in) :: what
    if (.not. condition) then
      failures = failures + 1
      if (failures <= 20) print '(a,i0,a,a)', 'rank ', me, ': failed: ', what
    end if
  end subroutine

  subroutine check_ok(ierr, what)
    integer, intent(in) :: ierr
    character(len=*), intent(in) :: what
    call check(ierr == MPI_SUCCESS, what)
  end subroutine

  ! What a neighbor sends to this rank: its rank times 1000 plus ours.
  ! MPI_PROC_NULL sends nothing: the slot keeps -1.
  integer function expected_from(source)
    integer, intent(in) :: source
    if (source == MPI_PROC_NULL) then
      expected_from = -1
    else
      expected_from = source * 1000 + me
    end if
  end function

  integer function expected_rank(source)
    integer, intent(in) :: source
    if (source == MPI_PROC_NULL) then
      expected_rank = -1
    else
      expected_rank = source
    end if
  end function

  ! The fifteen collectives on `comm`, whose in- and out-neighbors are
  ! `sources` and `destinations` in the topology's order.
  subroutine run_collectives(comm, sources, destinations, label)
    HANDLE(MPI_Comm), intent(in) :: comm
    integer, intent(in) :: sources(:), destinations(:)
    character(len=*), intent(in) :: label
    integer :: indegree, outdegree, i, ierr, form
    integer, allocatable :: send(:), recv(:), scounts(:), sdispls(:), rcounts(:), rdispls(:)
    integer(kind=MPI_ADDRESS_KIND), allocatable :: sbytes(:), rbytes(:)
    HANDLE(MPI_Datatype), allocatable :: stypes(:), rtypes(:)
    HANDLE(MPI_Request) :: request, requests(1)
    integer :: mine(1)
    character(len=64) :: what

    indegree = size(sources)
    outdegree = size(destinations)
    allocate(send(max(outdegree, 1)), recv(max(indegree, 1)), scounts(outdegree), sdispls(outdegree), &
             rcounts(indegree), rdispls(indegree), sbytes(outdegree), rbytes(indegree), stypes(outdegree), &
             rtypes(indegree))
    do i = 1, outdegree
      send(i) = me * 1000 + destinations(i)
      scounts(i) = 1
      sdispls(i) = i - 1
      sbytes(i) = 4 * (i - 1)
      stypes(i) = MPI_INTEGER
    end do
    do i = 1, indegree
      rcounts(i) = 1
      rdispls(i) = i - 1
      rbytes(i) = 4 * (i - 1)
      rtypes(i) = MPI_INTEGER
    end do
    mine(1) = me

    ! form 1: blocking, 2: non-blocking, 3: persistent (started twice).
    do form = 1, 3
      ! allgather and allgatherv: every in-neighbor's rank.
      recv = -1
      select case (form)
      case (1)
        call MPI_Neighbor_allgather(mine, 1, MPI_INTEGER, recv, 1, MPI_INTEGER, comm, ierr)
      case (2)
        call MPI_Ineighbor_allgather(mine, 1, MPI_INTEGER, recv, 1, MPI_INTEGER, comm, request, ierr)
        call MPI_Wait(request, MPI_STATUS_IGNORE, ierr)
      case (3)
        call MPI_Neighbor_allgather_init(mine, 1, MPI_INTEGER, recv, 1, MPI_INTEGER, comm, MPI_INFO_NULL, &
                                         request, ierr)
        call persistent_twice(request, recv, ierr)
      end select
      write (what, '(a,a,i0)') label, ' allgather form ', form
      call check_ok(ierr, what)
      do i = 1, indegree
        call check(recv(i) == expected_rank(sources(i)), what)
      end do

      recv = -1
      select case (form)
      case (1)
        call MPI_Neighbor_allgatherv(mine, 1, MPI_INTEGER, recv, rcounts, rdispls, MPI_INTEGER, comm, ierr)
      case (2)
        call MPI_Ineighbor_allgatherv(mine, 1, MPI_INTEGER, recv, rcounts, rdispls, MPI_INTEGER, comm, &
                                      requests(1), ierr)
        call MPI_Waitall(1, requests, MPI_STATUSES_IGNORE, ierr)
      case (3)
        call MPI_Neighbor_allgatherv_init(mine, 1, MPI_INTEGER, recv, rcounts, rdispls, MPI_INTEGER, comm, &
                                          MPI_INFO_NULL, request, ierr)
        call persistent_twice(request, recv, ierr)
      end select
      write (what, '(a,a,i0)') label, ' allgatherv form ', form
      call check_ok(ierr, what)
      do i = 1, indegree
        call check(recv(i) == expected_rank(sources(i)), what)
      end do

      ! alltoall, alltoallv, alltoallw: a block per out-edge.
      recv = -1
      select case (form)
      case (1)
        call MPI_Neighbor_alltoall(send, 1, MPI_INTEGER, recv, 1, MPI_INTEGER, comm, ierr)
      case (2)
        call MPI_Ineighbor_alltoall(send, 1, MPI_INTEGER, recv, 1, MPI_INTEGER, comm, request, ierr)
        call MPI_Wait(request, MPI_STATUS_IGNORE, ierr)
      case (3)
        call MPI_Neighbor_alltoall_init(send, 1, MPI_INTEGER, recv, 1, MPI_INTEGER, comm, MPI_INFO_NULL, &
                                        request, ierr)
        call persistent_twice(request, recv, ierr)
      end select
      write (what, '(a,a,i0)') label, ' alltoall form ', form
      call check_ok(ierr, what)
      do i = 1, indegree
        call check(recv(i) == expected_from(sources(i)), what)
      end do

      recv = -1
      select case (form)
      case (1)
        call MPI_Neighbor_alltoallv(send, scounts, sdispls, MPI_INTEGER, recv, rcounts, rdispls, MPI_INTEGER, &
                                    comm, ierr)
      case (2)
        call MPI_Ineighbor_alltoallv(send, scounts, sdispls, MPI_INTEGER, recv, rcounts, rdispls, MPI_INTEGER, &
                                     comm, request, ierr)
        call MPI_Wait(request, MPI_STATUS_IGNORE, ierr)
      case (3)
        call MPI_Neighbor_alltoallv_init(send, scounts, sdispls, MPI_INTEGER, recv, rcounts, rdispls, &
                                         MPI_INTEGER, comm, MPI_INFO_NULL, request, ierr)
        call persistent_twice(request, recv, ierr)
      end select
      write (what, '(a,a,i0)') label, ' alltoallv form ', form
      call check_ok(ierr, what)
      do i = 1, indegree
        call check(recv(i) == expected_from(sources(i)), what)
      end do

      ! MPICH 4.0.2's mpi_f08 wrappers of the alltoallw forms ask
      ! PMPI_Dist_graph_neighbors_count for the degree, which fails on a
      ! Cartesian or graph communicator (with or without distopo).
#ifdef DISTOPO_F08
      if (label == 'cart' .or. label == 'graph') cycle
#endif
      recv = -1
      select case (form)
      case (1)
        call MPI_Neighbor_alltoallw(send, scounts, sbytes, stypes, recv, rcounts, rbytes, rtypes, comm, ierr)
      case (2)
        call MPI_Ineighbor_alltoallw(send, scounts, sbytes, stypes, recv, rcounts, rbytes, rtypes, comm, &
                                     request, ierr)
        call MPI_Wait(request, MPI_STATUS_IGNORE, ierr)
      case (3)
        call MPI_Neighbor_alltoallw_init(send, scounts, sbytes, stypes, recv, rcounts, rbytes, rtypes, comm, &
                                         MPI_INFO_NULL, request, ierr)
        call persistent_twice(request, recv, ierr)
      end select
      write (what, '(a,a,i0)') label, ' alltoallw form ', form
      call check_ok(ierr, what)
      do i = 1, indegree
        call check(recv(i) == expected_from(sources(i)), what)
      end do
    end do
  end subroutine

  ! Starts a persistent collective twice (the receive buffer cleared in
  ! between), then frees it.
  subroutine persistent_twice(request, recv, ierr)
    HANDLE(MPI_Request), intent(inout) :: request
    integer, intent(inout) :: recv(:)
    integer, intent(inout) :: ierr
    integer :: round, rc
    if (ierr /= MPI_SUCCESS) return
    do round = 1, 2
      recv = -1
      call MPI_Start(request, rc)
      if (rc == MPI_SUCCESS) call MPI_Wait(request, MPI_STATUS_IGNORE, rc)
      if (rc /= MPI_SUCCESS) ierr = rc
    end do
    call MPI_Request_free(request, rc)
    if (rc /= MPI_SUCCESS) ierr = rc
  end subroutine
end module checks

program fortran_topology
  use checks
  implicit none
  integer :: ierr, i, status, ndims, rank, source, dest, nnodes, nedges, count, newrank
  integer :: dims(2), coords(2), got_dims(2), got_coords(2), ring_sources(2), ring_destinations(2)
  integer :: indegree, outdegree, size_of
  integer :: cart_sources(4), graph_index(64), graph_edges(128), got_index(64), got_edges(128)
  integer :: got_sources(2), got_destinations(2), source_weights(2), destination_weights(2)
  logical :: periods(2), got_periods(2), remain(2), weighted, sorted
  integer, allocatable :: neighbors(:)
  HANDLE(MPI_Comm) :: cart, row, alone, graph, ring, adjacent

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)

  ! --- Cartesian: periodic x open grid -------------------------------------
  dims = 0
  call MPI_Dims_create(nprocs, 2, dims, ierr)
  call check(ierr == MPI_SUCCESS .and. dims(1) * dims(2) == nprocs .and. dims(1) >= dims(2), 'dims_create')
  periods = [.true., .false.]
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
  call check_ok(ierr, 'cart_create')
  call MPI_Topo_test(cart, status, ierr)
  call check(status == MPI_CART, 'topo_test cart')
  call MPI_Cartdim_get(cart, ndims, ierr)
  call check(ndims == 2, 'cartdim_get')
  call MPI_Cart_get(cart, 2, got_dims, got_periods, coords, ierr)
  call check(all(got_dims == dims) .and. (got_periods(1) .eqv. .true.) .and. (got_periods(2) .eqv. .false.), &
             'cart_get')
  call MPI_Cart_rank(cart, coords, rank, ierr)
  call check(rank == me, 'cart_rank')
  call MPI_Cart_coords(cart, me, 2, got_coords, ierr)
  call check(all(got_coords == coords), 'cart_coords')
  ! Per dimension the -1 neighbor then the +1 neighbor, for in and out alike.
  do i = 1, 2
    call MPI_Cart_shift(cart, i - 1, 1, source, dest, ierr)
    cart_sources(2 * i - 1) = source
    cart_sources(2 * i) = dest
  end do
  call check(cart_sources(1) == modulo(coords(1) - 1, dims(1)) * dims(2) + coords(2), 'cart_shift periodic')
  if (coords(2) == 0) call check(cart_sources(3) == MPI_PROC_NULL, 'cart_shift open end')
  call run_collectives(cart, cart_sources, cart_sources, 'cart')

  remain = [.true., .false.]
  call MPI_Cart_sub(cart, remain, row, ierr)
  call MPI_Comm_size(row, size_of, ierr)
  call check(size_of == dims(1), 'cart_sub keeping dimension 1')
  call MPI_Comm_free(row, ierr)
  ! distopo: a zero-dimensional grid of one process on every rank.
  remain = [.false., .false.]
  call MPI_Cart_sub(cart, remain, alone, ierr)
  call check(alone /= MPI_COMM_NULL, 'cart_sub dropping every dimension gives every rank a communicator')
  if (alone /= MPI_COMM_NULL) then
    call MPI_Comm_size(alone, size_of, ierr)
    call check(size_of == 1, 'cart_sub dropping every dimension: one process')
    call MPI_Comm_free(alone, ierr)
  end if
  call MPI_Cart_map(MPI_COMM_WORLD, 2, dims, periods, newrank, ierr)
  call check(ierr == MPI_SUCCESS .and. newrank >= 0 .and. newrank < nprocs, 'cart_map')
  call MPI_Comm_free(cart, ierr)

  ! --- graph: a ring, both directions ----------------------------------------
  do i = 1, nprocs
    graph_index(i) = 2 * i
    graph_edges(2 * i - 1) = modulo(i - 2, nprocs)
    graph_edges(2 * i) = modulo(i, nprocs)
  end do
  call MPI_Graph_create(MPI_COMM_WORLD, nprocs, graph_index, graph_edges, .false., graph, ierr)
  call check_ok(ierr, 'graph_create')
  call MPI_Topo_test(graph, status, ierr)
  call check(status == MPI_GRAPH, 'topo_test graph')
  call MPI_Graphdims_get(graph, nnodes, nedges, ierr)
  call check(nnodes == nprocs .and. nedges == 2 * nprocs, 'graphdims_get')
  call MPI_Graph_get(graph, nnodes, nedges, got_index, got_edges, ierr)
  call check(all(got_index(1:nnodes) == graph_index(1:nnodes)) .and. &
             all(got_edges(1:nedges) == graph_edges(1:nedges)), 'graph_get')
  call MPI_Graph_neighbors_count(graph, me, count, ierr)
  call check(count == 2, 'graph_neighbors_count')
  allocate(neighbors(count))
  call MPI_Graph_neighbors(graph, me, count, neighbors, ierr)
  call check(neighbors(1) == modulo(me - 1, nprocs) .and. neighbors(2) == modulo(me + 1, nprocs), &
             'graph_neighbors')
  call run_collectives(graph, neighbors, neighbors, 'graph')
  call MPI_Graph_map(MPI_COMM_WORLD, nprocs, graph_index, graph_edges, newrank, ierr)
  call check(ierr == MPI_SUCCESS .and. newrank >= 0 .and. newrank < nprocs, 'graph_map')
  call MPI_Comm_free(graph, ierr)

  ! --- distributed graph: each rank names its two out-edges, higher rank first
  ! (weight 2 to the higher one, 1 to the lower).
  ring_destinations = [modulo(me + 1, nprocs), modulo(me - 1, nprocs)]
  ring_destinations = [maxval(ring_destinations), minval(ring_destinations)]
  call MPI_Dist_graph_create(MPI_COMM_WORLD, 1, [me], [2], ring_destinations, [2, 1], MPI_INFO_NULL, .false., &
                             ring, ierr)
  call check_ok(ierr, 'dist_graph_create')
  call MPI_Topo_test(ring, status, ierr)
  call check(status == MPI_DIST_GRAPH, 'topo_test dist graph')
  call MPI_Dist_graph_neighbors_count(ring, indegree, outdegree, weighted, ierr)
  call check(indegree == 2 .and. outdegree == 2 .and. weighted, 'dist_graph_neighbors_count')
  call MPI_Dist_graph_neighbors(ring, 2, got_sources, source_weights, 2, got_destinations, destination_weights, ierr)
  ! distopo: sorted by (rank, weight); the lower neighbor was given the lower weight.
  sorted = got_destinations(1) <= got_destinations(2) .and. got_sources(1) <= got_sources(2)
  call check(sorted, 'dist_graph_create returns sorted neighbor lists')
  call check(got_destinations(1) == ring_destinations(2) .and. got_destinations(2) == ring_destinations(1), &
             'dist graph destinations')
  call check(all(destination_weights == [1, 2]), 'dist graph destination weights')
  ring_sources = [modulo(me - 1, nprocs), modulo(me + 1, nprocs)]
  call check(got_sources(1) == min(ring_sources(1), ring_sources(2)) .and. &
             got_sources(2) == max(ring_sources(1), ring_sources(2)), 'dist graph sources')
  call run_collectives(ring, got_sources, got_destinations, 'dist graph')
  call MPI_Comm_free(ring, ierr)

  ! --- distributed graph, adjacent: the same ring, unweighted --------------
  ring_sources = [modulo(me - 1, nprocs), modulo(me + 1, nprocs)]
  ring_destinations = [modulo(me + 1, nprocs), modulo(me - 1, nprocs)]
  call MPI_Dist_graph_create_adjacent(MPI_COMM_WORLD, 2, ring_sources, MPI_UNWEIGHTED, 2, ring_destinations, &
                                      MPI_UNWEIGHTED, MPI_INFO_NULL, .false., adjacent, ierr)
  call check_ok(ierr, 'dist_graph_create_adjacent')
  call MPI_Dist_graph_neighbors_count(adjacent, indegree, outdegree, weighted, ierr)
  call check(indegree == 2 .and. outdegree == 2 .and. .not. weighted, 'adjacent neighbors_count')
  call MPI_Dist_graph_neighbors(adjacent, 2, got_sources, MPI_UNWEIGHTED, 2, got_destinations, MPI_UNWEIGHTED, ierr)
  call check(all(got_sources == ring_sources) .and. all(got_destinations == ring_destinations), &
             'adjacent keeps the order given')
  call run_collectives(adjacent, got_sources, got_destinations, 'adjacent')
  call MPI_Comm_free(adjacent, ierr)

  call MPI_Allreduce(MPI_IN_PLACE, failures, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (me == 0) then
    if (failures == 0) then
      print '(a)', ' No Errors'
    else
      print '(a,i0,a)', ' Found ', failures, ' errors'
    end if
  end if
  call MPI_Finalize(ierr)
  if (failures /= 0) error stop 1
end program
