//! The search tree: nodes and edges in two flat arenas, indices instead of pointers.
//!
//! An edge holds a move and its prior; a node holds the statistics of the position the move
//! leads to. Nodes are created only for edges that have been tried, so an expanded position with
//! many moves costs one edge per move (24 bytes on 8x8 and 10x10 boards) and one node per move
//! actually searched.

use damas_rules::{Geometry, Move};

/// Index of a node in [`Tree::nodes`].
pub type NodeId = u32;

/// Marks an edge whose child node does not exist yet.
const NO_CHILD: NodeId = NodeId::MAX;

/// Where a node stands in the search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NodeState {
    /// Reached but never evaluated.
    Unexpanded,
    /// Sent to the evaluator; its answer has not come back yet.
    Pending,
    /// Evaluated: its edges exist.
    Expanded,
    /// The game is over here; the value is for the side to move at this node.
    Terminal(f32),
}

/// Statistics of one position in the tree.
#[derive(Clone, Debug)]
pub struct Node {
    /// First of this node's edges in [`Tree::edges`].
    pub first_edge: u32,
    /// Number of edges (legal moves).
    pub edge_count: u32,
    /// Completed visits.
    pub visits: u32,
    /// Visits sent down but not yet backed up (virtual loss).
    pub in_flight: u32,
    /// Sum of backed-up values, from the view of the side that moved into this node.
    pub value_sum: f32,
    /// Whether the node is expanded, waiting or final.
    pub state: NodeState,
}

impl Node {
    fn new() -> Self {
        Node {
            first_edge: 0,
            edge_count: 0,
            visits: 0,
            in_flight: 0,
            value_sum: 0.0,
            state: NodeState::Unexpanded,
        }
    }

    /// Mean value from the view of the side that moved into this node (0 when unvisited).
    pub fn mean(&self) -> f32 {
        if self.visits == 0 {
            0.0
        } else {
            self.value_sum / self.visits as f32
        }
    }
}

/// A move out of a node, with its prior and the node it leads to.
#[derive(Clone, Debug)]
pub struct Edge<G: Geometry> {
    /// The move.
    pub mv: Move<G>,
    /// The evaluator's probability for it (with root noise mixed in at the root).
    pub prior: f32,
    /// The node it leads to, if it was ever tried.
    child: NodeId,
}

impl<G: Geometry> Edge<G> {
    /// The child node, if the move was ever tried.
    pub fn child(&self) -> Option<NodeId> {
        (self.child != NO_CHILD).then_some(self.child)
    }
}

/// Nodes and edges of one search; node 0 is the root.
#[derive(Clone, Debug)]
pub struct Tree<G: Geometry> {
    /// All nodes; the root is node 0.
    pub nodes: Vec<Node>,
    /// All edges, each node's contiguous.
    pub edges: Vec<Edge<G>>,
}

impl<G: Geometry> Default for Tree<G> {
    fn default() -> Self {
        Tree {
            nodes: vec![Node::new()],
            edges: Vec::new(),
        }
    }
}

impl<G: Geometry> Tree<G> {
    /// The root node.
    pub const ROOT: NodeId = 0;

    /// The node with this id.
    pub fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id as usize]
    }

    /// The node with this id, to change.
    pub fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id as usize]
    }

    /// The edges of a node.
    pub fn edges(&self, id: NodeId) -> &[Edge<G>] {
        let node = self.node(id);
        &self.edges[node.first_edge as usize..(node.first_edge + node.edge_count) as usize]
    }

    /// The edges of a node, to change.
    pub fn edges_mut(&mut self, id: NodeId) -> &mut [Edge<G>] {
        let node = &self.nodes[id as usize];
        let range = node.first_edge as usize..(node.first_edge + node.edge_count) as usize;
        &mut self.edges[range]
    }

    /// Gives `id` one edge per move with these priors and marks it expanded.
    pub fn expand(&mut self, id: NodeId, moves: &[Move<G>], priors: &[f32]) {
        let first_edge = self.edges.len() as u32;
        self.edges
            .extend(moves.iter().zip(priors).map(|(&mv, &prior)| Edge {
                mv,
                prior,
                child: NO_CHILD,
            }));
        let node = self.node_mut(id);
        node.first_edge = first_edge;
        node.edge_count = moves.len() as u32;
        node.state = NodeState::Expanded;
    }

    /// The child behind edge `index` of node `id`, created if it does not exist yet.
    pub fn child_or_new(&mut self, id: NodeId, index: usize) -> NodeId {
        let edge = (self.node(id).first_edge as usize) + index;
        if self.edges[edge].child == NO_CHILD {
            self.edges[edge].child = self.nodes.len() as NodeId;
            self.nodes.push(Node::new());
        }
        self.edges[edge].child
    }

    /// Adds a visit in flight to every node on `path`.
    pub fn add_in_flight(&mut self, path: &[NodeId]) {
        for &id in path {
            self.node_mut(id).in_flight += 1;
        }
    }

    /// Backs up `value` (for the side to move at the last node of `path`) along `path`, turning
    /// visits in flight into completed ones if `was_in_flight`.
    pub fn back_up(&mut self, path: &[NodeId], value: f32, was_in_flight: bool) {
        // The last node's statistics are from the view of the side that moved into it.
        let mut value = -value;
        for &id in path.iter().rev() {
            let node = self.node_mut(id);
            node.visits += 1;
            node.value_sum += value;
            if was_in_flight {
                node.in_flight -= 1;
            }
            value = -value;
        }
    }

    /// The subtree below edge `index` of the root, as a tree of its own (tree reuse after a
    /// move); an empty tree if that move was never searched.
    pub fn subtree(&self, index: usize) -> Tree<G> {
        let Some(old_root) = self.edges(Self::ROOT).get(index).and_then(Edge::child) else {
            return Tree::default();
        };
        let mut tree = Tree {
            nodes: vec![self.node(old_root).clone()],
            edges: Vec::new(),
        };
        // Breadth first: each copied node's edges are appended, their children queued.
        let mut queue = std::collections::VecDeque::from([(old_root, Self::ROOT)]);
        while let Some((old, new)) = queue.pop_front() {
            let node = self.node(old);
            if node.state == NodeState::Pending {
                // Its evaluation will never arrive in the new tree.
                tree.node_mut(new).state = NodeState::Unexpanded;
            }
            let first_edge = tree.edges.len() as u32;
            for edge in self.edges(old) {
                let child = match edge.child() {
                    Some(old_child) => {
                        let new_child = tree.nodes.len() as NodeId;
                        tree.nodes.push(self.node(old_child).clone());
                        queue.push_back((old_child, new_child));
                        new_child
                    }
                    None => NO_CHILD,
                };
                tree.edges.push(Edge {
                    mv: edge.mv,
                    prior: edge.prior,
                    child,
                });
            }
            let copy = tree.node_mut(new);
            copy.first_edge = first_edge;
            copy.in_flight = 0;
        }
        tree
    }

    /// Bytes held by the arenas (capacity, not just length).
    pub fn memory_bytes(&self) -> usize {
        self.nodes.capacity() * size_of::<Node>() + self.edges.capacity() * size_of::<Edge<G>>()
    }
}
